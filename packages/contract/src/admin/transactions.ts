import { z } from 'zod';
import { successOf } from '../common';
import { BILLING_CYCLES, PAYMENT_PROVIDERS } from '../constants';

/** Payment statuses stored on a transaction. */
export const TRANSACTION_STATUSES = ['pending', 'completed', 'failed', 'cancelled', 'refunded'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** Gateway filter values of the transactions tab ('crypto' is accepted for nowpayments). */
export const TRANSACTION_GATEWAYS = ['all', ...PAYMENT_PROVIDERS] as const;
export type TransactionGateway = (typeof TRANSACTION_GATEWAYS)[number];

export const TRANSACTION_GATEWAY_LABELS: Record<TransactionGateway, string> = {
  all: 'Toutes',
  stripe: 'Stripe',
  paypal: 'PayPal',
  nowpayments: 'Crypto (NOWPayments)',
  test: 'Test',
  manual: 'Manuel',
};

/** Why a payment needs an administrator's eye (payments.flag). */
export const PAYMENT_FLAGS = ['replaced_subscription_paid'] as const;
export type PaymentFlag = (typeof PAYMENT_FLAGS)[number];
export const PAYMENT_FLAG_LABELS: Record<PaymentFlag, string> = {
  // A provider charged a subscription that was replaced or cancelled: recorded, never reactivated, refunded.
  replaced_subscription_paid: 'Paiement reçu pour un abonnement remplacé',
};

export const TRANSACTIONS_DEFAULT_LIMIT = 100;
export const TRANSACTIONS_MAX_LIMIT = 500;

export const TRANSACTION_MESSAGES = {
  invalidGateway: 'Passerelle inconnue',
  invalidStatus: 'Statut inconnu',
  invalidDate: 'Date invalide (AAAA-MM-JJ)',
  invalidRange: 'La date de début doit précéder la date de fin',
  invalidPaging: 'Pagination invalide',
} as const;

const zDay = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, TRANSACTION_MESSAGES.invalidDate)
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    TRANSACTION_MESSAGES.invalidDate,
  );

const zOptionalQuery = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional());

/**
 * GET /api/admin/transactions.php — filters shared by the list and the CSV export
 * (format=csv). Dates are UTC days, both included.
 */
export const ZAdminTransactionsQuery = z
  .object({
    gateway: zOptionalQuery(
      z
        .string()
        .trim()
        .toLowerCase()
        .transform((g) => (g === 'crypto' ? 'nowpayments' : g))
        .pipe(z.enum(TRANSACTION_GATEWAYS, { message: TRANSACTION_MESSAGES.invalidGateway })),
    ),
    status: zOptionalQuery(
      z
        .string()
        .trim()
        .toLowerCase()
        .pipe(z.enum(['all', ...TRANSACTION_STATUSES], { message: TRANSACTION_MESSAGES.invalidStatus })),
    ),
    from: zOptionalQuery(zDay),
    to: zOptionalQuery(zDay),
    limit: zOptionalQuery(
      z.coerce
        .number({ message: TRANSACTION_MESSAGES.invalidPaging })
        .int(TRANSACTION_MESSAGES.invalidPaging)
        .min(1, TRANSACTION_MESSAGES.invalidPaging)
        .transform((n) => Math.min(n, TRANSACTIONS_MAX_LIMIT)),
    ),
    offset: zOptionalQuery(
      z.coerce
        .number({ message: TRANSACTION_MESSAGES.invalidPaging })
        .int(TRANSACTION_MESSAGES.invalidPaging)
        .min(0, TRANSACTION_MESSAGES.invalidPaging)
        .max(10_000_000, TRANSACTION_MESSAGES.invalidPaging),
    ),
    format: zOptionalQuery(z.enum(['json', 'csv'], { message: 'Format inconnu' })),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: TRANSACTION_MESSAGES.invalidRange });
export type TAdminTransactionsQuery = z.output<typeof ZAdminTransactionsQuery>;

/** One money movement as the transactions tab lists it (spec 3 §3 "Transaction"). */
export const ZAdminTransaction = z.object({
  id: z.string(),
  customer_id: z.string(),
  customer_name: z.string(),
  customer_email: z.string(),
  /** In the transaction's currency, 2 decimals. */
  amount: z.number(),
  currency: z.string(),
  payment_provider: z.string(),
  transaction_id: z.string().nullable(),
  status: z.string(),
  /** Payé, Payé (Expiré), En attente…: see PAYMENT_STATUS_LABELS. */
  computed_status: z.enum(['completed', 'pending', 'failed', 'cancelled', 'refunded', 'completed_expired']),
  created_at: z.string(),
  plan_name: z.string(),
  billing_cycle: z.enum(BILLING_CYCLES),
  /** Set when the back office must look at the payment (PAYMENT_FLAG_LABELS). */
  flag: z.enum(PAYMENT_FLAGS).nullable().optional(),
});
export type TAdminTransaction = z.infer<typeof ZAdminTransaction>;

export const ZAdminTransactionsResponse = successOf({
  data: z.array(ZAdminTransaction),
  meta: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
});
export type TAdminTransactionsResponse = z.infer<typeof ZAdminTransactionsResponse>;

/** Columns of the CSV export, in order. */
export const TRANSACTIONS_CSV_HEADERS = [
  'Date',
  'Client',
  'Email',
  'Plan',
  'Période',
  'Montant',
  'Devise',
  'Passerelle',
  'Statut',
  'Référence',
] as const;

/** "transactions-2026-11-22.csv" for the UTC day of `now`. */
export function transactionsCsvFilename(now: Date): string {
  return `transactions-${now.toISOString().slice(0, 10)}.csv`;
}
