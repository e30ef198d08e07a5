import { z } from 'zod';
import { BILLING_CYCLES, ENCRYPTION_LEVELS } from '../constants';
import { successOf } from '../common';
import { ZCustomerProfile } from '../customers/customer';
import { ZRingCustomerView, ZRingUser } from '../rings/ring-views';

/** The subscription as the customer space shows it (spec 2 §3 "Plan as seen by a customer"). */
export const ZCustomerPlanView = z.object({
  subscription_id: z.string(),
  plan_id: z.string(),
  plan: z.string(),
  plan_slug: z.string(),
  /** The plan's monthly price, in euros. */
  price: z.number(),
  /** The plan's monthly video option price, in euros (0: video included in the plan). */
  video_option: z.number(),
  /** The paid video option was bought with this subscription (what `describeBilling` bills). */
  video_chosen: z.boolean(),
  maxUsers: z.number().int(),
  maxRings: z.number().int(),
  /** Seats used across all the customer's Rings: accepted and pending members, the owner not counted. */
  currentUsers: z.number().int(),
  ringsOwned: z.number().int(),
  features: z.array(z.string()),
  videoEnabled: z.boolean(),
  status: z.enum(['active', 'inactive']),
  computed_status: z.enum(['active', 'cancelled', 'expired', 'suspended', 'pending']),
  billing_cycle: z.enum(BILLING_CYCLES),
  starts_at: z.string(),
  expires_at: z.string(),
  nextBilling: z.string().nullable(),
  auto_renew: z.boolean(),
  /** When the customer cancelled the renewal (the subscription runs to its end date), else null. */
  cancelled_at: z.string().nullable(),
  days_remaining: z.number().int(),
  encryption_levels: z.array(z.enum(ENCRYPTION_LEVELS)),
  ephemeral_allowed: z.boolean(),
  disk_space: z.number(),
  storage_bytes: z.number(),
  support_level: z.string(),
  priority_support: z.boolean(),
  payment_provider: z.string(),
});
export type TCustomerPlanView = z.infer<typeof ZCustomerPlanView>;

/** GET /api/customer/dashboard-data.php */
export const ZDashboardData = z.object({
  customer: ZCustomerProfile,
  subscription: ZCustomerPlanView.nullable(),
  /** The selected (or first) Ring of the customer, null before one is created. */
  ring: ZRingCustomerView.nullable(),
  rings: z.array(z.object({ id: z.string(), name: z.string() })),
  ringUsers: z.array(ZRingUser),
});
export type TDashboardData = z.infer<typeof ZDashboardData>;
export const ZDashboardDataResponse = successOf({ data: ZDashboardData });
