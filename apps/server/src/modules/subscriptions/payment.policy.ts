import { centsToEuros, computePaymentStatus, type PaymentComputedStatus } from '@securering/contract';

/** A payment row joined with the state of its subscription and the current name of its plan. */
export interface PaymentWithStateRow {
  amount_cents: number;
  status: string;
  plan_name: string;
  current_plan_name: string | null;
  sub_status: string | null;
  sub_expires_at: string | null;
}

/** What the admin payment lists (a customer's payments, all transactions) derive from a row. */
export interface PaymentListing {
  amount: number;
  plan_name: string;
  computed_status: PaymentComputedStatus;
}

/**
 * The amount in euros, the plan name at the time of payment (else the plan's current name) and the
 * status as shown, "Payé (Expiré)" once the paid subscription ended.
 */
export function toPaymentListing(row: PaymentWithStateRow, now: Date): PaymentListing {
  return {
    amount: centsToEuros(row.amount_cents),
    plan_name: row.plan_name || row.current_plan_name || '',
    computed_status: computePaymentStatus(
      row.status,
      row.sub_status && row.sub_expires_at
        ? { status: row.sub_status, expires_at: row.sub_expires_at }
        : null,
      now,
    ),
  };
}
