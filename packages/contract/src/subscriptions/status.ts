/** Statuses shown by the back office and the customer space (spec 3 §3–4). */

export type SubscriptionComputedStatus = 'active' | 'cancelled' | 'expired' | 'suspended' | 'pending';
export type PaymentComputedStatus =
  'completed' | 'pending' | 'failed' | 'cancelled' | 'refunded' | 'completed_expired';

export const SUBSCRIPTION_STATUS_LABELS: Record<SubscriptionComputedStatus, string> = {
  active: 'Actif',
  cancelled: 'Annulé',
  expired: 'Expiré',
  suspended: 'Suspendu',
  pending: 'En attente',
};

export const PAYMENT_STATUS_LABELS: Record<PaymentComputedStatus, string> = {
  completed: 'Payé',
  pending: 'En attente',
  failed: 'Échec',
  cancelled: 'Annulé',
  refunded: 'Remboursé',
  completed_expired: 'Payé (Expiré)',
};

export interface SubscriptionState {
  status: string;
  expires_at: string;
}

/** An active subscription whose end date has passed is expired even before the job marks it. */
export function computeSubscriptionStatus(sub: SubscriptionState, now: Date): SubscriptionComputedStatus {
  switch (sub.status) {
    case 'active':
      return Date.parse(sub.expires_at) > now.getTime() ? 'active' : 'expired';
    case 'suspended':
    case 'cancelled':
    case 'expired':
    case 'pending':
      return sub.status;
    default:
      return 'expired';
  }
}

/** Whole days left, rounded up; 0 once ended. */
export function daysRemaining(expiresAt: string, now: Date): number {
  const ms = Date.parse(expiresAt) - now.getTime();
  return ms > 0 ? Math.ceil(ms / 86_400_000) : 0;
}

/** A completed payment whose subscription has ended shows as "Payé (Expiré)". */
export function computePaymentStatus(
  status: string,
  subscription: SubscriptionState | null,
  now: Date,
): PaymentComputedStatus {
  if (status === 'completed') {
    return subscription && computeSubscriptionStatus(subscription, now) !== 'active'
      ? 'completed_expired'
      : 'completed';
  }
  if (status === 'pending' || status === 'failed' || status === 'cancelled' || status === 'refunded')
    return status;
  return 'pending';
}
