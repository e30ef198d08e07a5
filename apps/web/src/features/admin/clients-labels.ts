import {
  PAYMENT_STATUS_LABELS,
  SUBSCRIPTION_STATUS_LABELS,
  type PaymentComputedStatus,
  type SubscriptionComputedStatus,
} from '@securering/contract';

export type BadgeTone = 'success' | 'warning' | 'danger' | 'neutral';

/**
 * Spec 3 §4 badge mapping: active and completed show Actif; suspended and pending show En attente;
 * cancelled and failed show Annulé.
 */
export const STATUS_BADGES: Record<string, { label: string; tone: BadgeTone }> = {
  active: { label: 'Actif', tone: 'success' },
  completed: { label: 'Actif', tone: 'success' },
  suspended: { label: 'En attente', tone: 'warning' },
  pending: { label: 'En attente', tone: 'warning' },
  cancelled: { label: 'Annulé', tone: 'danger' },
  failed: { label: 'Annulé', tone: 'danger' },
};

export function statusBadge(status: string): { label: string; tone: BadgeTone } {
  return STATUS_BADGES[status] ?? { label: status, tone: 'neutral' };
}

const SUBSCRIPTION_TONES: Record<SubscriptionComputedStatus, BadgeTone> = {
  active: 'success',
  pending: 'warning',
  suspended: 'warning',
  cancelled: 'danger',
  expired: 'neutral',
};

export function subscriptionBadge(status: SubscriptionComputedStatus): { label: string; tone: BadgeTone } {
  return { label: SUBSCRIPTION_STATUS_LABELS[status], tone: SUBSCRIPTION_TONES[status] };
}

const PAYMENT_TONES: Record<PaymentComputedStatus, BadgeTone> = {
  completed: 'success',
  completed_expired: 'neutral',
  pending: 'warning',
  failed: 'danger',
  cancelled: 'danger',
  refunded: 'neutral',
};

export function paymentBadge(status: PaymentComputedStatus): { label: string; tone: BadgeTone } {
  return { label: PAYMENT_STATUS_LABELS[status], tone: PAYMENT_TONES[status] };
}

export const BILLING_CYCLE_LABELS: Record<string, string> = {
  monthly: 'Mensuel',
  yearly: 'Annuel',
  annual: 'Annuel',
};

export const PROVIDER_LABELS: Record<string, string> = {
  stripe: 'Stripe',
  paypal: 'PayPal',
  nowpayments: 'Crypto (NOWPayments)',
  test: 'Test',
  manual: 'Manuel',
};

export const PAYMENT_TYPE_LABELS: Record<string, string> = {
  subscription: 'Abonnement',
  'one-off': 'Ponctuel',
};

export const customerName = (c: { first_name: string; last_name: string }) =>
  `${c.first_name} ${c.last_name}`.trim();
