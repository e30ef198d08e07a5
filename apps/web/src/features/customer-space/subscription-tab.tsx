import { formatAmount, type TCustomerPlanView } from '@securering/contract';
import { CreditCard, XCircle } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/dialog';
import { useToast } from '@/components/ui/toast';
import { formatDateLong } from '@/lib/dates';
import { openPaymentPortal, useCancelSubscription } from './dashboard-api';

const PROVIDER_LABELS: Record<string, string> = {
  stripe: 'Carte bancaire',
  paypal: 'PayPal',
  nowpayments: 'Crypto-monnaie',
  test: 'Paiement de test',
  manual: 'Abonnement attribué par l’administration',
};

/** "Abonnement": the current period, the payment portal, and cancellation at the period end. */
export function SubscriptionTab({ plan }: { plan: TCustomerPlanView }) {
  const notify = useToast();
  const cancel = useCancelSubscription();
  const [confirming, setConfirming] = useState(false);
  const [portalError, setPortalError] = useState<string | null>(null);
  const [opening, setOpening] = useState(false);

  return (
    <Card>
      <CardHeader>
        <CardTitle>Mon abonnement</CardTitle>
      </CardHeader>
      <CardContent className="space-y-6">
        <dl className="grid gap-y-2 text-sm sm:grid-cols-[14rem_1fr]">
          <dt className="text-slate-500">Plan</dt>
          <dd className="font-semibold">{plan.plan}</dd>
          <dt className="text-slate-500">Prix</dt>
          <dd>
            {formatAmount(plan.price)} €/mois · facturation{' '}
            {plan.billing_cycle === 'yearly' ? 'annuelle' : 'mensuelle'}
            {plan.videoEnabled ? ' · vidéo incluse' : ''}
          </dd>
          <dt className="text-slate-500">Moyen de paiement</dt>
          <dd>{PROVIDER_LABELS[plan.payment_provider] ?? plan.payment_provider}</dd>
          <dt className="text-slate-500">Période en cours</dt>
          <dd>
            du {formatDateLong(plan.starts_at)} au {formatDateLong(plan.expires_at)} ({plan.days_remaining}{' '}
            jours restants)
          </dd>
          <dt className="text-slate-500">Renouvellement</dt>
          <dd>
            {plan.auto_renew
              ? `Automatique le ${formatDateLong(plan.expires_at)}`
              : 'Aucun : l’abonnement prendra fin à cette date'}
          </dd>
        </dl>
        {portalError ? <Alert variant="error">{portalError}</Alert> : null}
        <div className="flex flex-wrap gap-2">
          <Button
            disabled={opening}
            onClick={() => {
              setPortalError(null);
              setOpening(true);
              openPaymentPortal()
                .then((url) => window.location.assign(url))
                .catch((error: Error) => {
                  setPortalError(error.message);
                  setOpening(false);
                });
            }}
          >
            <CreditCard aria-hidden /> Ouvrir le portail de paiement
          </Button>
          <Button asChild variant="outline">
            <Link to="/subscribe">Changer de plan</Link>
          </Button>
          <Button
            variant="destructive"
            disabled={!plan.auto_renew || cancel.isPending}
            onClick={() => setConfirming(true)}
          >
            <XCircle aria-hidden /> Annuler l’abonnement
          </Button>
        </div>
        <ConfirmDialog
          open={confirming}
          onOpenChange={setConfirming}
          title="Annuler l’abonnement ?"
          description={`Votre abonnement restera actif jusqu’au ${formatDateLong(plan.expires_at)}, puis ne sera pas renouvelé. Vos Rings seront alors suspendus.`}
          confirmLabel="Annuler l’abonnement"
          cancelLabel="Garder mon abonnement"
          pending={cancel.isPending}
          onConfirm={() =>
            cancel.mutate(undefined, {
              onSuccess: (res) =>
                notify({
                  title: 'Abonnement annulé',
                  description: res.message,
                  variant: 'success',
                  duration: 8000,
                }),
              onError: (error) =>
                notify({ title: 'Impossible d’annuler', description: error.message, variant: 'error' }),
              onSettled: () => setConfirming(false),
            })
          }
        />
      </CardContent>
    </Card>
  );
}
