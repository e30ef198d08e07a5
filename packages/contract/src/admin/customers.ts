import { z } from 'zod';
import { BILLING_CYCLES } from '../constants';
import { successOf, zLooseBoolean } from '../common';
import { ACCOUNT_MESSAGES, EMAIL_MAX_LENGTH, isEmailAddress, passwordError } from '../customers/validation';

/** French texts of the back office "Clients" tab (spec 3 §2.4, §5, §8); server and console share them. */
export const ADMIN_CUSTOMER_MESSAGES = {
  notFound: 'Client introuvable',
  emailTaken: 'Un client existe déjà avec cet email',
  passwordRequired: ACCOUNT_MESSAGES.passwordRequired,
  passwordRequiredForCreate: 'Veuillez saisir un mot de passe pour créer le client',
  invalidPaging: 'Paramètres de pagination invalides',
  textTooLong: 'Texte trop long',
  created: 'Client créé',
  updated: 'Client modifié',
  deleted: 'Client supprimé avec ses Rings',
  comingSoon: 'Fonctionnalité à venir',
  choosePlan: 'Veuillez sélectionner un plan',
  chooseBillingCycle: 'Veuillez sélectionner une période de facturation',
  startRequired: 'Date de début requise',
  startInvalid: 'Date de début invalide',
  expiryRequired: 'Date d’expiration requise',
  expiryInvalid: 'Date d’expiration invalide',
  expiryBeforeStart: 'La date d’expiration doit suivre la date de début',
  expiryInPast: 'La date d’expiration doit être dans le futur',
  planUnavailable: 'Plan introuvable ou inactif',
  subscriptionCreated: 'Abonnement créé',
  subscriptionCreateFailed: 'Erreur lors de la création de l’abonnement',
  replacedByManual: 'Remplacé par un abonnement manuel',
  subscriptionsLoadFailed: 'Erreur lors du chargement des abonnements',
  paymentsLoadFailed: 'Erreur lors du chargement des paiements',
  paymentsEmpty: 'Aucun paiement trouvé pour ce client',
  connectionError: 'Erreur de connexion',
} as const;

/** Page size of the customers list: 25 by default, at most 100. */
export const ADMIN_CUSTOMERS_PAGE_SIZE = 25;
export const ADMIN_CUSTOMERS_MAX_PAGE_SIZE = 100;
/** Default length of a manual subscription (spec 3 §9). */
export const MANUAL_SUBSCRIPTION_DEFAULT_DAYS = 30;

const M = ADMIN_CUSTOMER_MESSAGES;

// ───────────────────────────── customers ─────────────────────────────

/** A customer in the server form (snake case). Never carries the password hash. */
export const ZAdminCustomer = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  company: z.string(),
  phone: z.string(),
  country: z.string(),
  address_line1: z.string(),
  address_line2: z.string(),
  city: z.string(),
  postal_code: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  is_active: z.boolean(),
  /** active when is_active, otherwise suspended (cancelled is kept for older data). */
  status: z.enum(['active', 'suspended', 'cancelled']),
  stripe_customer_id: z.string().nullable(),
  paypal_customer_id: z.string().nullable(),
  /** Name of the plan of the current active subscription, or null. */
  current_plan: z.string().nullable(),
  /** Sum of completed payments, in euros. */
  total_spent: z.number(),
  rings_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TAdminCustomer = z.infer<typeof ZAdminCustomer>;

/** Query strings arrive as text; empty means "not given". */
const pagingNumber = (fallback: number) =>
  z.preprocess(
    (v) => (v === '' || v === null || v === undefined ? undefined : v),
    z.coerce
      .number({ error: M.invalidPaging })
      .int(M.invalidPaging)
      .min(1, M.invalidPaging)
      .max(1_000_000, M.invalidPaging)
      .default(fallback),
  );

/** GET /api/admin/customers.php?search=&page=&per_page= */
export const ZAdminCustomersQuery = z.object({
  search: z
    .string()
    .max(200, M.textTooLong)
    .optional()
    .transform((s) => s?.trim() ?? ''),
  page: pagingNumber(1),
  per_page: pagingNumber(ADMIN_CUSTOMERS_PAGE_SIZE).transform((n) =>
    Math.min(n, ADMIN_CUSTOMERS_MAX_PAGE_SIZE),
  ),
});
export type TAdminCustomersQuery = z.input<typeof ZAdminCustomersQuery>;

export const ZAdminCustomersResponse = successOf({
  data: z.array(ZAdminCustomer),
  meta: z.object({ total: z.number().int(), page: z.number().int(), per_page: z.number().int() }),
});
export type TAdminCustomersResponse = z.infer<typeof ZAdminCustomersResponse>;

const text = (max: number) =>
  z
    .string({ error: M.textTooLong })
    .max(max, M.textTooLong)
    .nullish()
    .transform((v) => (v ?? '').trim());
const providerRef = z
  .string({ error: M.textTooLong })
  .max(255, M.textTooLong)
  .nullish()
  .transform((v) => (v ?? '').trim() || null);
const email = z
  .string({ error: ACCOUNT_MESSAGES.emailRequired })
  .trim()
  .toLowerCase()
  .min(1, ACCOUNT_MESSAGES.emailRequired)
  .max(EMAIL_MAX_LENGTH, { message: ACCOUNT_MESSAGES.emailInvalid, abort: true })
  .refine(isEmailAddress, ACCOUNT_MESSAGES.emailInvalid);
const firstName = z
  .string({ error: ACCOUNT_MESSAGES.firstNameRequired })
  .trim()
  .min(1, ACCOUNT_MESSAGES.firstNameRequired)
  .max(100, M.textTooLong);
const lastName = z
  .string({ error: ACCOUNT_MESSAGES.lastNameRequired })
  .trim()
  .min(1, ACCOUNT_MESSAGES.lastNameRequired)
  .max(100, M.textTooLong);
/** The account password rules of spec 1 §5, with the back-office message when it is missing. */
const password = z
  .string({ error: M.passwordRequired })
  .max(200, M.textTooLong)
  .superRefine((value, ctx) => {
    const problem = passwordError(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A customer's id, in a body or in the path; anything unusable reads as an unknown customer. */
const customerId = z.string({ error: M.notFound }).trim().min(1, M.notFound).max(64, M.notFound);

const customerFields = {
  company: text(150),
  phone: text(50),
  country: text(100),
  address_line1: text(255),
  address_line2: text(255),
  city: text(100),
  postal_code: text(20),
  stripe_customer_id: providerRef,
  paypal_customer_id: providerRef,
};

/** POST /api/admin/customers.php */
export const ZCreateAdminCustomerRequest = z.object({
  first_name: firstName,
  last_name: lastName,
  email,
  password,
  ...customerFields,
  email_verified: zLooseBoolean.optional().transform((v) => v ?? false),
  is_active: zLooseBoolean.optional().transform((v) => v ?? true),
});
export type TCreateAdminCustomerRequest = z.input<typeof ZCreateAdminCustomerRequest>;

/**
 * PUT /api/admin/customers.php — fields left out keep their value. The password changes only when
 * password_update is true and the password is not blank (spec 3 §5).
 */
export const ZUpdateAdminCustomerRequest = z
  .object({
    id: customerId,
    first_name: firstName.optional(),
    last_name: lastName.optional(),
    email: email.optional(),
    ...z.object(customerFields).partial().shape,
    email_verified: zLooseBoolean.optional(),
    is_active: zLooseBoolean.optional(),
    password: z.string().max(200, M.textTooLong).nullish(),
    password_update: zLooseBoolean.optional(),
  })
  .transform(({ password: pw, password_update, ...rest }) => ({
    ...rest,
    /** The new password, or undefined when it stays unchanged. */
    new_password: password_update === true && pw && pw.trim() ? pw : undefined,
  }))
  .superRefine((value, ctx) => {
    if (value.new_password === undefined) return;
    const problem = passwordError(value.new_password);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['password'] });
  });
export type TUpdateAdminCustomerRequest = z.input<typeof ZUpdateAdminCustomerRequest>;

/** DELETE /api/admin/customers.php */
export const ZDeleteAdminCustomerRequest = z.object({
  id: customerId,
});

export const ZAdminCustomerResponse = successOf({ data: ZAdminCustomer, message: z.string() });
export type TAdminCustomerResponse = z.infer<typeof ZAdminCustomerResponse>;
export const ZDeleteAdminCustomerResponse = successOf({ message: z.string() });

/** :id in /api/admin/customers/:id/… */
export const ZAdminCustomerParams = z.object({
  id: customerId,
});

// ───────────────────────────── subscriptions ─────────────────────────────

export const ZAdminCustomerSubscription = z.object({
  id: z.string(),
  plan_id: z.string(),
  plan_name: z.string(),
  max_users: z.number().int(),
  status: z.string(),
  computed_status: z.enum(['active', 'cancelled', 'expired', 'suspended', 'pending']),
  days_remaining: z.number().int(),
  /** Amount of the latest completed payment of this subscription, in euros; null when nothing was paid. */
  transaction_amount: z.number().nullable(),
  transaction_currency: z.string().nullable(),
  billing_cycle: z.enum(BILLING_CYCLES),
  starts_at: z.string(),
  expires_at: z.string(),
  cancelled_at: z.string().nullable(),
  auto_renew: z.boolean(),
  video_enabled: z.boolean(),
  provider: z.string(),
  notes: z.string(),
  created_at: z.string(),
  /** The customer's first Ring, or null. */
  ring_name: z.string().nullable(),
  ring_active: z.boolean(),
  features_chat: z.boolean(),
  features_voice: z.boolean(),
  features_video: z.boolean(),
  storage_gb: z.number(),
});
export type TAdminCustomerSubscription = z.infer<typeof ZAdminCustomerSubscription>;

/** GET /api/admin/customers/:id/subscriptions */
export const ZAdminCustomerSubscriptionsResponse = successOf({ data: z.array(ZAdminCustomerSubscription) });

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** 'YYYY-MM-DD' (midnight UTC) or any ISO date-time → UTC ISO; undefined when not a date. */
export function manualDateToUtcIso(value: string): string | undefined {
  const v = value.trim();
  const ms = DATE_ONLY.test(v) ? Date.parse(`${v}T00:00:00.000Z`) : Date.parse(v);
  if (!Number.isFinite(ms)) return undefined;
  const date = new Date(ms);
  return date.getUTCFullYear() >= 1970 && date.getUTCFullYear() <= 9999 ? date.toISOString() : undefined;
}

const dateField = (required: string, invalid: string) =>
  z
    .string({ error: required })
    .trim()
    .min(1, required)
    .max(40, invalid)
    .refine((v) => manualDateToUtcIso(v) !== undefined, invalid)
    .transform((v) => manualDateToUtcIso(v)!);

/** POST /api/admin/customers/:id/create-subscription (spec 3 §5 "Manual subscription"). */
export const ZCreateManualSubscriptionRequest = z
  .object({
    plan_id: z
      .union([z.string(), z.number()], { error: M.choosePlan })
      .transform(String)
      .pipe(z.string().trim().min(1, M.choosePlan).max(64, M.choosePlan)),
    billing_cycle: z
      .string({ error: M.chooseBillingCycle })
      .trim()
      .transform((v) => (v === 'annual' ? 'yearly' : v))
      .pipe(z.enum(BILLING_CYCLES, { error: M.chooseBillingCycle })),
    starts_at: dateField(M.startRequired, M.startInvalid),
    expires_at: dateField(M.expiryRequired, M.expiryInvalid),
    auto_renew: zLooseBoolean.optional().transform((v) => v ?? false),
    video_enabled: zLooseBoolean.optional().transform((v) => v ?? false),
    notes: text(1000),
  })
  .refine((v) => Date.parse(v.expires_at) > Date.parse(v.starts_at), {
    message: M.expiryBeforeStart,
    path: ['expires_at'],
  });
export type TCreateManualSubscriptionRequest = z.input<typeof ZCreateManualSubscriptionRequest>;

export const ZCreateManualSubscriptionResponse = successOf({
  data: ZAdminCustomerSubscription,
  message: z.string(),
});

/** The form's starting values (spec 3 §5): no plan, monthly, start today, expiry in 30 days, options off. */
export function manualSubscriptionDefaults(now: Date): {
  plan_id: string;
  billing_cycle: 'monthly' | 'yearly';
  starts_at: string;
  expires_at: string;
  auto_renew: boolean;
  video_enabled: boolean;
  notes: string;
} {
  const later = new Date(now);
  later.setDate(later.getDate() + MANUAL_SUBSCRIPTION_DEFAULT_DAYS);
  return {
    plan_id: '',
    billing_cycle: 'monthly',
    starts_at: toDateInputValue(now),
    expires_at: toDateInputValue(later),
    auto_renew: false,
    video_enabled: false,
    notes: '',
  };
}

/** A date as an <input type="date"> value, in the local time zone. */
export function toDateInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

// ───────────────────────────── payments ─────────────────────────────

export const ZAdminCustomerPayment = z.object({
  id: z.string(),
  created_at: z.string(),
  plan_name: z.string(),
  /** The payments list says annual for yearly (spec 3 §3). */
  billing_cycle: z.enum(['monthly', 'annual']),
  /** Euros. */
  amount: z.number(),
  /** "398,00 €" */
  amount_formatted: z.string(),
  currency: z.string(),
  payment_provider: z.string(),
  computed_status: z.enum(['completed', 'pending', 'failed', 'cancelled', 'refunded', 'completed_expired']),
  failure_reason: z.string().nullable(),
  payment_type: z.enum(['subscription', 'one-off']),
  transaction_id: z.string().nullable(),
  status: z.string(),
});
export type TAdminCustomerPayment = z.infer<typeof ZAdminCustomerPayment>;

/** GET /api/admin/customers/:id/payments */
export const ZAdminCustomerPaymentsResponse = successOf({
  data: z.array(ZAdminCustomerPayment),
  summary: z.object({
    /** Sum of completed payments, in euros. */
    total_collected: z.number(),
    completed_count: z.number().int(),
    failed_count: z.number().int(),
  }),
});
export type TAdminCustomerPaymentsResponse = z.infer<typeof ZAdminCustomerPaymentsResponse>;
