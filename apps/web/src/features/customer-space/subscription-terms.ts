import type { TCustomerPlanView } from '@securering/contract';

/** What "Abonnement" says about how the subscription is paid, renewed and cancelled. */
export interface SubscriptionTerms {
  /** "Carte bancaire", "PayPal (paiement unique)"… */
  method: string;
  /** How the current period was paid and what happens at its end. */
  renewal: string;
  /** "Ouvrir le portail de paiement": card (Stripe) subscriptions only, the ones with a portal. */
  portal: boolean;
  /** "Annuler l’abonnement" and, when it is not possible, why (shown next to the button). */
  cancel: { allowed: boolean; reason: string | null };
}

type PlanTerms = Pick<
  TCustomerPlanView,
  'payment_provider' | 'auto_renew' | 'cancelled_at' | 'expires_at' | 'billing_cycle' | 'status'
>;

/** Providers paid once per period: nothing is charged again without the customer. */
const ONE_OFF: Record<string, string> = {
  paypal: 'PayPal (paiement unique)',
  nowpayments: 'Crypto-monnaie (paiement unique)',
  test: 'Paiement de test (aucun débit réel)',
};

/**
 * The payment method, the renewal and the cancellation rules of a subscription, as the server
 * applies them: only card subscriptions renew by themselves (and have Stripe's portal); PayPal,
 * crypto and test payments cover one period, with a reminder email 7 days before it ends.
 */
export function subscriptionTerms(plan: PlanTerms, formatDate: (iso: string) => string): SubscriptionTerms {
  const end = formatDate(plan.expires_at);
  const every = plan.billing_cycle === 'yearly' ? 'chaque année' : 'chaque mois';
  const cancelled = plan.cancelled_at
    ? `Déjà annulé le ${formatDate(plan.cancelled_at)}\u202f: l’abonnement reste actif jusqu’au ${end}, sans renouvellement.`
    : null;
  const inactive = plan.status !== 'active' ? 'L’abonnement n’est plus actif.' : null;

  if (plan.payment_provider === 'stripe') {
    return {
      method: 'Carte bancaire',
      renewal: plan.auto_renew
        ? `Prélevé automatiquement sur votre carte le ${end}, puis ${every}.`
        : `Renouvellement annulé\u202f: l’abonnement prend fin le ${end}.`,
      portal: true,
      cancel: cancelOf(plan, inactive ?? cancelled ?? 'Le renouvellement est déjà arrêté.'),
    };
  }
  if (plan.payment_provider === 'manual') {
    return {
      method: 'Attribué par l’administration',
      renewal: `Aucun prélèvement\u202f: la période en cours prend fin le ${end}. Contactez-nous pour la prolonger ou la modifier.`,
      portal: false,
      cancel: cancelOf(
        plan,
        inactive ?? cancelled ?? `Rien à annuler\u202f: cet abonnement prendra fin le ${end} sans renouvellement.`,
      ),
    };
  }
  return {
    method: ONE_OFF[plan.payment_provider] ?? plan.payment_provider,
    renewal: `Payé pour la période en cours, sans prélèvement automatique. Un email de rappel vous est envoyé 7 jours avant le ${end}\u202f: renouvelez alors depuis «\u202fChanger de plan\u202f».`,
    portal: false,
    cancel: cancelOf(
      plan,
      inactive ??
        cancelled ??
        `Rien à annuler\u202f: ce paiement ne se renouvelle pas, l’abonnement prendra fin le ${end}.`,
    ),
  };
}

function cancelOf(plan: PlanTerms, reason: string): SubscriptionTerms['cancel'] {
  const allowed = plan.status === 'active' && plan.auto_renew && !plan.cancelled_at;
  return allowed ? { allowed, reason: null } : { allowed, reason };
}
