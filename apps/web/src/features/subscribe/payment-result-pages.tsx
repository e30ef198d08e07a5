import { ZFinalizeResponse, formatEuros, type TFinalizeResponse } from '@securering/contract';
import { CheckCircle2, Clock, XCircle } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { ApiError, apiRequest } from '@/lib/api-client';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { logToServer } from '@/lib/client-log';
import { formatDateLong } from '@/lib/dates';

type State =
  | { kind: 'loading' }
  | { kind: 'done'; result: TFinalizeResponse }
  | { kind: 'crypto'; reference: string }
  | { kind: 'error'; message: string };

/** Finalises the Stripe session or PayPal order named in the address, then refreshes the customer. */
export function PaymentSuccessPage() {
  const [params] = useSearchParams();
  const session = useCustomerSession();
  const sessionId = params.get('session_id');
  const paypalOrderId = params.get('paypal_order_id') ?? params.get('token');
  const cryptoReference = params.get('provider') === 'crypto' ? (params.get('reference') ?? '') : null;
  const [state, setState] = useState<State>(() =>
    cryptoReference !== null
      ? { kind: 'crypto', reference: cryptoReference }
      : sessionId || paypalOrderId
        ? { kind: 'loading' }
        : { kind: 'error', message: 'Référence de paiement manquante' },
  );
  const started = useRef(false);
  const { refresh } = session;

  useEffect(() => {
    if (started.current || (!sessionId && !paypalOrderId) || cryptoReference !== null) return;
    started.current = true;
    const call = sessionId
      ? apiRequest('/api/subscriptions/finalize-session.php', {
          method: 'POST',
          auth: 'customer',
          body: { session_id: sessionId },
          schema: ZFinalizeResponse,
        })
      : apiRequest('/api/subscriptions/finalize-paypal.php', {
          method: 'POST',
          auth: 'customer',
          body: { paypal_order_id: paypalOrderId },
          schema: ZFinalizeResponse,
        });
    call
      .then(async (result) => {
        setState({ kind: 'done', result });
        logToServer('info', 'payment', 'Finalisation du paiement', {
          status: result.status,
          reference: result.reference,
        });
        await refresh();
      })
      .catch((error: unknown) => {
        const message =
          error instanceof ApiError ? error.message : 'Erreur lors de la finalisation du paiement';
        setState({ kind: 'error', message });
        logToServer('error', 'payment', 'Échec de la finalisation du paiement', { error: message });
      });
  }, [sessionId, paypalOrderId, cryptoReference, refresh]);

  return (
    <PageShell title="Paiement" heading="Paiement" width="sm">
      <Card>
        <CardContent className="flex flex-col items-center gap-4 pt-6 text-center">
          {state.kind === 'loading' ? <Spinner label="Confirmation du paiement…" /> : null}
          {state.kind === 'done' ? <FinalizeResult result={state.result} /> : null}
          {state.kind === 'crypto' ? (
            <>
              <Clock className="size-12 text-primary" aria-hidden />
              <h2 className="text-xl font-semibold">Paiement en cours de confirmation</h2>
              <p className="text-slate-600">
                Votre abonnement sera activé dès que le réseau aura confirmé la transaction. Vous recevrez un
                email.
              </p>
              {state.reference ? (
                <p className="text-sm">
                  Référence&#8239;: <strong>{state.reference}</strong>
                </p>
              ) : null}
            </>
          ) : null}
          {state.kind === 'error' ? (
            <Alert variant="error" className="w-full text-left">
              {state.message}
            </Alert>
          ) : null}
          <Button asChild>
            <Link to="/client">Accéder à mon espace client</Link>
          </Button>
        </CardContent>
      </Card>
    </PageShell>
  );
}

function FinalizeResult({ result }: { result: TFinalizeResponse }) {
  const Icon = result.status === 'completed' ? CheckCircle2 : result.status === 'pending' ? Clock : XCircle;
  const color =
    result.status === 'completed'
      ? 'text-emerald-600'
      : result.status === 'pending'
        ? 'text-primary'
        : 'text-red-500';
  return (
    <>
      <Icon className={`size-12 ${color}`} aria-hidden />
      <h2 className="text-xl font-semibold">
        {result.status === 'completed'
          ? 'Paiement réussi\u202f!'
          : result.status === 'pending'
            ? 'Paiement en attente'
            : 'Paiement non abouti'}
      </h2>
      <p className="text-slate-600">{result.message}</p>
      <dl className="grid w-full grid-cols-[8rem_1fr] gap-y-1 rounded-lg bg-slate-50 p-4 text-left text-sm">
        <dt className="text-slate-500">Référence</dt>
        <dd className="font-mono">{result.reference}</dd>
        <dt className="text-slate-500">Plan</dt>
        <dd>
          {result.plan_name} ({result.billing_cycle === 'yearly' ? 'annuel' : 'mensuel'})
        </dd>
        <dt className="text-slate-500">Montant</dt>
        <dd>{formatEuros(result.amount)}</dd>
        {result.expires_at ? (
          <>
            <dt className="text-slate-500">Actif jusqu’au</dt>
            <dd>{formatDateLong(result.expires_at)}</dd>
          </>
        ) : null}
      </dl>
    </>
  );
}

export function PaymentCancelledPage() {
  return (
    <PageShell title="Paiement annulé" width="sm">
      <Card>
        <CardContent className="flex flex-col items-center gap-4 pt-6 text-center">
          <XCircle className="size-12 text-slate-400" aria-hidden />
          <p className="text-slate-600">
            Le paiement a été annulé&#8239;: aucun montant n’a été débité. Votre sélection est conservée.
          </p>
          <Button asChild>
            <Link to="/subscribe?resume=1">Reprendre ma souscription</Link>
          </Button>
        </CardContent>
      </Card>
    </PageShell>
  );
}

export function SubscriptionSuccessPage() {
  return (
    <PageShell title="Abonnement activé" width="sm">
      <Card>
        <CardContent className="flex flex-col items-center gap-4 pt-6 text-center">
          <CheckCircle2 className="size-12 text-emerald-600" aria-hidden />
          <p className="text-slate-600">
            Votre abonnement est actif. Créez votre premier Ring et invitez votre équipe depuis votre espace
            client.
          </p>
          <Button asChild>
            <Link to="/client">Accéder à mon espace client</Link>
          </Button>
        </CardContent>
      </Card>
    </PageShell>
  );
}
