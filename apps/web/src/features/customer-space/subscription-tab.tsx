import { describeBilling, type TCustomerPlanView } from '@securering/contract';
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
import { subscriptionTerms } from './subscription-terms';

/**
 * "Abonnement": what was bought and is billed, how it is paid and renewed, the payment portal (card
 * subscriptions only) and cancellation at the period end, or why it is not possible.
 */
export function SubscriptionTab({ plan }: { plan: TCustomerPlanView }) {
  const notify = useToast();
  const cancel = useCancelSubscription();
  const [confirming, setConfirming] = useState(false);
  const [portalError, setPortalError] = useState<string | null>(null);
  const [opening, setOpening] = useState(false);
  const billing = describeBilling({
    price: plan.price,
    videoOption: plan.video_option,
    cycle: plan.billing_cycle,
    videoChosen: plan.video_chosen,
  });
  const terms = subscriptionTerms(plan, formatDateLong);

  return (
    <Card>
      <CardHeader>
        <CardTitle>Mon abonnement</CardTitle>
      </CardHeader>
      <CardContent className="space-y-6">
        <dl className="grid gap-y-1 text-sm sm:grid-cols-[14rem_1fr] sm:gap-y-2">
          <dt className="text-slate-500">Plan</dt>
          <dd className="mb-2 font-semibold sm:mb-0">{plan.plan}</dd>
          <dt className="text-slate-500">Facturation</dt>
          <dd className="mb-2 sm:mb-0">
            <span className="font-semibold">{billing.amount}</span> · {billing.video}
            {billing.offer ? <span className="text-emerald-700"> · {billing.offer}</span> : null}
          </dd>
          <dt className="text-slate-500">Moyen de paiement</dt>
          <dd className="mb-2 sm:mb-0">{terms.method}</dd>
          <dt className="text-slate-500">Période en cours</dt>
          <dd className="mb-2 sm:mb-0">
            du {formatDateLong(plan.starts_at)} au {formatDateLong(plan.expires_at)} ({plan.days_remaining}{' '}
            jours restants)
          </dd>
          <dt className="text-slate-500">Paiement et renouvellement</dt>
          <dd>{terms.renewal}</dd>
        </dl>
        {portalError ? <Alert variant="error">{portalError}</Alert> : null}
        <div className="flex flex-wrap items-start gap-2">
          {terms.portal ? (
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
          ) : null}
          <Button asChild variant="outline">
            <Link to="/subscribe">Changer de plan</Link>
          </Button>
        </div>
        <div className="flex flex-col gap-2 border-t border-slate-100 pt-4 sm:flex-row sm:items-center">
          <Button
            variant="destructive"
            className="self-start"
            disabled={!terms.cancel.allowed || cancel.isPending}
            aria-describedby={terms.cancel.reason ? 'cancel-reason' : undefined}
            onClick={() => setConfirming(true)}
          >
            <XCircle aria-hidden /> Annuler l’abonnement
          </Button>
          {terms.cancel.reason ? (
            <p id="cancel-reason" className="text-sm text-slate-600">
              {terms.cancel.reason}
            </p>
          ) : null}
        </div>
        <ConfirmDialog
          open={confirming}
          onOpenChange={setConfirming}
          title="Annuler l’abonnement&#8239;?"
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
