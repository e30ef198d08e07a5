import {
  centsToEuros,
  computeSubscriptionStatus,
  daysRemaining,
  parseFeatures,
  type TCustomerPlanView,
  type TDashboardData,
} from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { CustomerRow } from '../customers/customer.repository';
import { toCustomerProfile } from '../customers/customer.policy';
import { storageGb } from '../plans/plan.policy';
import { toRingCustomerView, toRingUser } from '../rings/ring.policy';
import { RingRepository } from '../rings/ring.repository';
import { entitlementsOf, findSubscriptionWithPlan } from '../subscriptions/entitlements';

/** Everything /client shows on load: profile, subscription, the selected Ring and its users. */
export class DashboardService {
  private readonly rings: RingRepository;

  constructor(private readonly ctx: AppContext) {
    this.rings = new RingRepository(ctx.db);
  }

  /**
   * The current subscription, or the latest one once it lapsed, with its plan. `ringsOwned` is the
   * number of Rings the customer owns (the caller has them loaded already).
   */
  async planView(customer: CustomerRow, ringsOwned: number): Promise<TCustomerPlanView | null> {
    const now = this.ctx.clock.now();
    const found = await findSubscriptionWithPlan(this.ctx, customer.id, now.toISOString(), {
      orLatest: true,
    });
    if (!found) return null;
    const { subscription, plan } = found;
    const entitlements = entitlementsOf(subscription, plan);
    const computed = computeSubscriptionStatus(subscription, now);
    const currentUsers = await this.rings.countSeats(customer.id);
    return {
      subscription_id: subscription.id,
      plan_id: plan.id,
      plan: plan.name,
      plan_slug: plan.slug,
      price: centsToEuros(plan.price_cents),
      video_option: centsToEuros(plan.video_option_cents),
      video_chosen: subscription.video_enabled === 1,
      maxUsers: entitlements.maxUsers,
      maxRings: entitlements.maxRings,
      currentUsers,
      ringsOwned,
      features: parseFeatures(plan.features),
      videoEnabled: entitlements.video,
      status: computed === 'active' ? 'active' : 'inactive',
      computed_status: computed,
      billing_cycle: subscription.billing_cycle,
      starts_at: subscription.starts_at,
      expires_at: subscription.expires_at,
      nextBilling: computed === 'active' && subscription.auto_renew === 1 ? subscription.expires_at : null,
      auto_renew: subscription.auto_renew === 1,
      cancelled_at: subscription.cancelled_at,
      days_remaining: computed === 'active' ? daysRemaining(subscription.expires_at, now) : 0,
      encryption_levels: entitlements.encryptionLevels,
      ephemeral_allowed: entitlements.ephemeralAllowed,
      disk_space: storageGb(entitlements.storageBytes),
      storage_bytes: entitlements.storageBytes,
      support_level: plan.support_level,
      priority_support: plan.support_level === 'priority' || plan.support_level === 'dedicated',
      payment_provider: subscription.provider,
    };
  }

  async dashboard(customer: CustomerRow, ringId?: string): Promise<TDashboardData> {
    const rings = await this.rings.findRingsByCustomer(customer.id);
    // Only the customer's own Rings can be selected; an unknown id falls back to the first.
    const ring = rings.find((r) => r.id === ringId) ?? rings[0];
    const members = ring ? await this.rings.findMembers(ring.id) : [];
    return {
      customer: toCustomerProfile(customer),
      subscription: await this.planView(customer, rings.length),
      ring: ring ? toRingCustomerView(ring, await this.rings.storageUsed(ring.id), members.length) : null,
      rings: rings.map((r) => ({ id: r.id, name: r.name })),
      ringUsers: members.map((member) => toRingUser(member)),
    };
  }
}
