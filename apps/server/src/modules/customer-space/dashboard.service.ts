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
import { parseEncryptionLevels, storageGb } from '../plans/plan.policy';
import { PlanRepository } from '../plans/plan.repository';
import { toRingCustomerView, toRingUser } from '../rings/ring.policy';
import { RingRepository } from '../rings/ring.repository';
import { SubscriptionRepository } from '../subscriptions/subscription.repository';

/** Everything /client shows on load: profile, subscription, the selected Ring and its users. */
export class DashboardService {
  private readonly rings: RingRepository;

  constructor(private readonly ctx: AppContext) {
    this.rings = new RingRepository(ctx.db);
  }

  async planView(customer: CustomerRow): Promise<TCustomerPlanView | null> {
    const now = this.ctx.clock.now();
    const subscriptions = new SubscriptionRepository(this.ctx.db);
    const subscription =
      (await subscriptions.findCurrent(customer.id, now.toISOString())) ??
      (await subscriptions.findLatest(customer.id));
    if (!subscription) return null;
    const plan = await new PlanRepository(this.ctx.db).findById(subscription.plan_id);
    if (!plan) return null;
    const computed = computeSubscriptionStatus(subscription, now);
    const [currentUsers, ringsOwned] = await Promise.all([
      this.rings.countSeats(customer.id),
      this.rings.findRingsByCustomer(customer.id),
    ]);
    return {
      subscription_id: subscription.id,
      plan_id: plan.id,
      plan: plan.name,
      plan_slug: plan.slug,
      price: centsToEuros(plan.price_cents),
      maxUsers: plan.max_users,
      maxRings: plan.max_rings,
      currentUsers,
      ringsOwned: ringsOwned.length,
      features: parseFeatures(plan.features),
      videoEnabled: subscription.video_enabled === 1 || plan.video_option_cents === 0,
      status: computed === 'active' ? 'active' : 'inactive',
      computed_status: computed,
      billing_cycle: subscription.billing_cycle,
      starts_at: subscription.starts_at,
      expires_at: subscription.expires_at,
      nextBilling: computed === 'active' && subscription.auto_renew === 1 ? subscription.expires_at : null,
      auto_renew: subscription.auto_renew === 1,
      days_remaining: computed === 'active' ? daysRemaining(subscription.expires_at, now) : 0,
      encryption_levels: parseEncryptionLevels(plan.encryption_levels),
      ephemeral_allowed: plan.ephemeral_allowed === 1,
      disk_space: storageGb(plan.storage_bytes),
      storage_bytes: plan.storage_bytes,
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
      subscription: await this.planView(customer),
      ring: ring ? toRingCustomerView(ring, await this.rings.storageUsed(ring.id), members.length) : null,
      rings: rings.map((r) => ({ id: r.id, name: r.name })),
      ringUsers: members.map(toRingUser),
    };
  }
}
