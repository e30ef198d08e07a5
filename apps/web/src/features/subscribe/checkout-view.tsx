import {
  CRYPTO_CURRENCIES,
  YEARLY_OFFER_LABEL,
  formatEuros,
  quotePrice,
  type CryptoCurrency,
  type TPaymentProviders,
  type TPublicPlan,
  type TSelection,
} from '@securering/contract';
import { ArrowLeft, Bitcoin, CreditCard, FlaskConical, Wallet } from 'lucide-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { NativeSelect } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { logToServer } from '@/lib/client-log';
import { createCheckout, createCryptoCheckout, usePlanChange, type RedirectProvider } from './subscribe-api';

/** How long the crypto notice stays (spec 1 §9). */
const CRYPTO_NOTICE_MS = 10_000;

export function CheckoutView({
  plan,
  selection,
  providers,
  onChangePlan,
}: {
  plan: TPublicPlan;
  selection: TSelection;
  providers: TPaymentProviders;
  onChangePlan: () => void;
}) {
  const navigate = useNavigate();
  const notify = useToast();
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [cryptoOpen, setCryptoOpen] = useState(false);
  const [currency, setCurrency] = useState<CryptoCurrency | ''>('');
  const planChange = usePlanChange(plan.id);
  const quote = quotePrice(
    { priceCents: Math.round(plan.price * 100), videoOptionCents: Math.round(plan.video_option * 100) },
    selection.billing_cycle,
    selection.video_option,
  );
  const period = selection.billing_cycle === 'yearly' ? `Annuel (${YEARLY_OFFER_LABEL})` : 'Mensuel';
  const total = formatEuros(quote.amountCents / 100);
  const none = !providers.card && !providers.paypal && !providers.crypto && !providers.test;

  const redirect = async (provider: RedirectProvider) => {
    setError(null);
    setPending(provider);
    try {
      const { checkout_url } = await createCheckout(provider, selection);
      if (provider === 'test') navigate(checkout_url);
      else window.location.assign(checkout_url);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : 'Erreur lors de la création du paiement');
      logToServer('error', 'payment', 'Création du paiement impossible', {
        provider,
        error: (e as Error).message,
      });
      setPending(null);
    }
  };

  const payCrypto = async () => {
    if (!currency) return setError('Veuillez sélectionner une crypto-monnaie');
    setError(null);
    setPending('crypto');
    // Opened now, while the click still counts as a user gesture; pointed at the invoice once created.
    const tab = window.open('', '_blank');
    try {
      const res = await createCryptoCheckout(selection, currency);
      if (tab) {
        tab.opener = null;
        tab.location.href = res.payment_url;
      } else {
        window.open(res.payment_url, '_blank', 'noopener');
      }
      notify({
        title: 'Page de paiement ouverte',
        description: `Réglez ${res.crypto_amount} ${res.crypto_currency} (${total}) dans le nouvel onglet. Votre abonnement s’activera dès la confirmation du paiement. Référence ${res.reference}.`,
        variant: 'info',
        duration: CRYPTO_NOTICE_MS,
      });
    } catch (e) {
      tab?.close();
      setError(e instanceof ApiError ? e.message : 'Erreur lors de la création du paiement crypto');
    } finally {
      setPending(null);
    }
  };

  return (
    <Card className="mx-auto max-w-2xl">
      <CardHeader>
        <CardTitle className="text-2xl">Finaliser votre abonnement</CardTitle>
      </CardHeader>
      <CardContent className="space-y-6">
        <dl
          className="grid grid-cols-[10rem_1fr] gap-y-2 rounded-lg bg-slate-50 p-4 text-sm"
          aria-label="Votre commande"
        >
          <dt className="text-slate-500">Plan</dt>
          <dd className="font-semibold">{plan.name}</dd>
          <dt className="text-slate-500">Période</dt>
          <dd>{period}</dd>
          <dt className="text-slate-500">Option vidéo</dt>
          <dd>{quote.videoIncluded ? 'Incluse' : quote.video ? 'Oui' : 'Non'}</dd>
          <dt className="text-slate-500">Total</dt>
          <dd className="text-lg font-bold">
            {total}{' '}
            <span className="text-sm font-normal text-slate-500">
              / {selection.billing_cycle === 'yearly' ? 'an' : 'mois'}
            </span>
          </dd>
        </dl>

        {planChange.data ? (
          <Alert
            variant={planChange.data.kind === 'replace' ? 'warning' : 'info'}
            title="Votre abonnement actuel"
          >
            {planChange.data.message}
          </Alert>
        ) : null}
        {error ? <Alert variant="error">{error}</Alert> : null}
        {none ? (
          <Alert variant="info">
            Aucun moyen de paiement n’est disponible pour le moment. Contactez-nous.
          </Alert>
        ) : null}

        <div className="grid gap-3 sm:grid-cols-2">
          {providers.card ? (
            <Button size="lg" disabled={pending !== null} onClick={() => void redirect('card')}>
              <CreditCard aria-hidden /> Payer par carte
            </Button>
          ) : null}
          {providers.paypal ? (
            <Button
              size="lg"
              variant="outline"
              disabled={pending !== null}
              onClick={() => void redirect('paypal')}
            >
              <Wallet aria-hidden /> Payer avec PayPal
            </Button>
          ) : null}
          {providers.crypto ? (
            <Button
              size="lg"
              variant="outline"
              disabled={pending !== null}
              onClick={() => setCryptoOpen((v) => !v)}
              aria-expanded={cryptoOpen}
            >
              <Bitcoin aria-hidden /> Payer en crypto-monnaie
            </Button>
          ) : null}
          {providers.test ? (
            <Button
              size="lg"
              variant="secondary"
              disabled={pending !== null}
              onClick={() => void redirect('test')}
            >
              <FlaskConical aria-hidden /> Paiement de test
            </Button>
          ) : null}
        </div>

        {cryptoOpen && providers.crypto ? (
          <section
            aria-label="Paiement en crypto-monnaie"
            className="space-y-4 rounded-lg border border-slate-200 p-4"
          >
            <h3 className="font-semibold">Paiement en crypto-monnaie</h3>
            <dl className="grid grid-cols-[10rem_1fr] gap-y-1 text-sm">
              <dt className="text-slate-500">Plan</dt>
              <dd>{plan.name}</dd>
              <dt className="text-slate-500">Période</dt>
              <dd>{period}</dd>
              <dt className="text-slate-500">Option vidéo</dt>
              <dd>{quote.videoIncluded ? 'Incluse' : quote.video ? 'Oui' : 'Non'}</dd>
              <dt className="text-slate-500">Total</dt>
              <dd className="font-semibold">{total} (EUR)</dd>
            </dl>
            <div className="space-y-1.5">
              <Label htmlFor="crypto-currency">Crypto-monnaie</Label>
              <NativeSelect
                id="crypto-currency"
                value={currency}
                onChange={(e) => setCurrency(e.target.value as CryptoCurrency | '')}
              >
                <option value="">Choisissez…</option>
                {CRYPTO_CURRENCIES.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </NativeSelect>
            </div>
            <Button disabled={!currency || pending !== null} onClick={() => void payCrypto()}>
              {pending === 'crypto' ? 'Création…' : `Payer ${total}`}
            </Button>
          </section>
        ) : null}

        <Button variant="ghost" onClick={onChangePlan} disabled={pending !== null}>
          <ArrowLeft aria-hidden /> Changer de plan
        </Button>
      </CardContent>
    </Card>
  );
}
