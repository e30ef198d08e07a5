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

/** The entitlements of the active subscription, or undefined when the customer has none. */
export async function getEntitlements(
  ctx: AppContext,
  customerId: string,
): Promise<Entitlements | undefined> {
  const subscription = await new SubscriptionRepository(ctx.db).findCurrent(
    customerId,
    ctx.clock.now().toISOString(),
  );
  if (!subscription) return undefined;
  const plan = await new PlanRepository(ctx.db).findById(subscription.plan_id);
  if (!plan) return undefined;
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
