import type { EncryptionLevel } from '@securering/contract';
import type { AppContext } from '../../app-context';
import { parseEncryptionLevels } from '../plans/plan.policy';
import { PlanRepository, type PlanRow } from '../plans/plan.repository';
import { SubscriptionRepository, type SubscriptionRow } from './subscription.repository';

/** What a customer's current subscription allows: the plan limits Rings are checked against. */
export interface Entitlements {
  subscription: SubscriptionRow;
  plan: PlanRow;
  maxRings: number;
  maxUsers: number;
  encryptionLevels: EncryptionLevel[];
  ephemeralAllowed: boolean;
  voice: boolean;
  video: boolean;
  storageBytes: number;
}

/**
 * The customer's current subscription (active and not past its end at `nowIso`) with its plan. With
 * `orLatest`, a customer without one gets its most recent subscription instead, whatever its state.
 * Undefined when there is no such subscription or its plan is gone (no further fallback then).
 */
export async function findSubscriptionWithPlan(
  ctx: AppContext,
  customerId: string,
  nowIso: string,
  { orLatest = false }: { orLatest?: boolean } = {},
): Promise<{ subscription: SubscriptionRow; plan: PlanRow } | undefined> {
  const subscriptions = new SubscriptionRepository(ctx.db);
  const subscription =
    (await subscriptions.findCurrent(customerId, nowIso)) ??
    (orLatest ? await subscriptions.findLatest(customerId) : undefined);
  if (!subscription) return undefined;
  const plan = await new PlanRepository(ctx.db).findById(subscription.plan_id);
  if (!plan) return undefined;
  return { subscription, plan };
}

/** The entitlements of the active subscription, or undefined when the customer has none. */
export async function getEntitlements(
  ctx: AppContext,
  customerId: string,
): Promise<Entitlements | undefined> {
  const found = await findSubscriptionWithPlan(ctx, customerId, ctx.clock.now().toISOString());
  return found && entitlementsOf(found.subscription, found.plan);
}

/** What a subscription to a plan allows, whatever the subscription's state. */
export function entitlementsOf(subscription: SubscriptionRow, plan: PlanRow): Entitlements {
  return {
    subscription,
    plan,
    maxRings: plan.max_rings,
    maxUsers: plan.max_users,
    encryptionLevels: parseEncryptionLevels(plan.encryption_levels),
    ephemeralAllowed: plan.ephemeral_allowed === 1,
    voice: plan.features_voice === 1,
    video: subscription.video_enabled === 1 || plan.video_option_cents === 0,
    storageBytes: plan.storage_bytes,
  };
}

/** -1 means unlimited. */
export function withinLimit(limit: number, used: number): boolean {
  return limit < 0 || used < limit;
}
