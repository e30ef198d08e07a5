import {
  SUBSCRIPTION_MESSAGES,
  daysRemaining,
  describePlanChange,
  planChangeKind,
  type TPlanChangeResponse,
} from '@securering/contract';
import type { AppContext } from '../../app-context';
import { AppError, badRequest, conflict } from '../../lib/app-error';
import { formatDateFr } from '../../lib/format';
import { sameOriginUrl } from '../../lib/same-origin';
import { loadStripeSettings } from '../../providers/payments/payment-settings';
import { StripeGateway } from '../../providers/payments/stripe-gateway';
import type { CustomerRow } from '../customers/customer.repository';
import { PlanRepository } from '../plans/plan.repository';
import { SubscriptionRepository } from './subscription.repository';

/** What a customer does with its own subscription: open Stripe's portal, or stop renewal. */
export class CustomerSubscriptionService {
  private readonly subscriptions: SubscriptionRepository;

  constructor(private readonly ctx: AppContext) {
    this.subscriptions = new SubscriptionRepository(ctx.db);
  }

  async portalUrl(customer: CustomerRow, returnUrl: string | undefined): Promise<string> {
    const { ctx } = this;
    const current = await this.subscriptions.findCurrent(customer.id, ctx.clock.now().toISOString());
    if (!customer.stripe_customer_id || !current || current.provider !== 'stripe') {
      throw badRequest(SUBSCRIPTION_MESSAGES.portalCardOnly);
    }
    // Parsed and compared by origin: a text prefix check let `https://site.fr.evil.com` through.
    const target =
      sameOriginUrl(returnUrl, ctx.config.publicUrl) ?? `${ctx.config.publicUrl}/client?tab=subscription`;
    try {
      return await new StripeGateway(await loadStripeSettings(ctx.settings, ctx.config)).createPortalSession(
        customer.stripe_customer_id,
        target,
      );
    } catch (error) {
      await ctx.systemLog.error('payment', 'Ouverture du portail Stripe impossible', {
        userId: customer.id,
        details: { error: (error as Error).message },
      });
      throw new AppError(502, SUBSCRIPTION_MESSAGES.portalFailed);
    }
  }

  /**
   * What paying for `planId` would do to the subscription the customer holds (null: it holds none),
   * in the words the checkout shows before payment; the activation applies the same rule.
   */
  async planChange(customer: CustomerRow, planId: string): Promise<TPlanChangeResponse['change']> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const current = await this.subscriptions.findCurrent(customer.id, now.toISOString());
    if (!current) return null;
    const plan = await new PlanRepository(ctx.db).findById(current.plan_id);
    const kind = planChangeKind(current.plan_id, planId);
    const renewsByCard = current.provider === 'stripe' && current.auto_renew === 1;
    const daysLeft = daysRemaining(current.expires_at, now);
    return {
      kind,
      current_plan_name: plan?.name ?? '',
      current_expires_at: current.expires_at,
      days_left: daysLeft,
      renews_by_card: renewsByCard,
      message: describePlanChange({
        kind,
        currentPlanName: plan?.name ?? '',
        currentEndLabel: formatDateFr(current.expires_at),
        daysLeft,
        renewsByCard,
      }),
    };
  }

  /** Stops renewal: the subscription stays active until its end date, then lapses. */
  async cancel(customer: CustomerRow): Promise<string> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const current = await this.subscriptions.findCurrent(customer.id, now.toISOString());
    if (!current) throw badRequest(SUBSCRIPTION_MESSAGES.noActiveSubscription);
    if (current.cancelled_at) throw conflict(SUBSCRIPTION_MESSAGES.alreadyCancelled);
    if (current.provider === 'stripe' && current.provider_subscription_id) {
      try {
        await new StripeGateway(await loadStripeSettings(ctx.settings, ctx.config)).cancelAtPeriodEnd(
          current.provider_subscription_id,
        );
      } catch (error) {
        await ctx.systemLog.error('payment', 'Annulation Stripe impossible', {
          userId: customer.id,
          details: { error: (error as Error).message },
        });
        throw new AppError(502, SUBSCRIPTION_MESSAGES.cancelFailed);
      }
    }
    await this.subscriptions.update(current.id, {
      auto_renew: 0,
      cancelled_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    await ctx.systemLog.info('payment', 'Abonnement annulé par le client (fin de période)', {
      userId: customer.id,
      details: { subscription_id: current.id, expires_at: current.expires_at },
    });
    return `Votre abonnement ne sera pas renouvelé. Il reste actif jusqu’au ${formatDateFr(current.expires_at)}.`;
  }
}
