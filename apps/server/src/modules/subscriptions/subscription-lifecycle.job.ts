import type { AppContext } from '../../app-context';
import { DAY_MS } from '../../lib/clock';
import { formatDateFr } from '../../lib/format';
import { CustomerRepository } from '../customers/customer.repository';
import { endRingAccessIfUnsubscribed } from '../rings/end-access';
import { PlanRepository } from '../plans/plan.repository';
import { PaymentRepository } from './payment.repository';
import { runProviderActions } from './provider-actions';
import { SubscriptionRepository } from './subscription.repository';

/** Reminder sent this long before a non-renewing subscription ends. */
export const REMINDER_BEFORE_MS = 7 * DAY_MS;
/** Card subscriptions renew at the period end; Stripe may take a few days to retry a charge. */
export const RENEWAL_GRACE_MS = 3 * DAY_MS;
/** Checkouts nobody finished are closed after a day. */
export const ABANDONED_AFTER_MS = DAY_MS;

/**
 * The scheduled part of the subscription lifecycle: expire lapsed subscriptions, remind before a
 * non-renewing period ends, close abandoned checkouts, and retry the provider calls that failed
 * (cancel a replaced subscription, refund a charge for one). Safe on several instances (conditional
 * claims; provider calls carry idempotency keys).
 */
export async function runSubscriptionLifecycle(
  ctx: AppContext,
): Promise<{ expired: number; reminded: number; abandoned: number; providerActions: number }> {
  const subscriptions = new SubscriptionRepository(ctx.db);
  const now = ctx.clock.now();
  const nowIso = now.toISOString();

  const expired = await subscriptions.expireLapsed(
    nowIso,
    new Date(now.getTime() - RENEWAL_GRACE_MS).toISOString(),
  );
  for (const { id } of expired)
    await ctx.systemLog.info('payment', 'Abonnement expiré', { details: { subscription_id: id } });
  // A customer left without a current subscription: its Rings stop serving, their sockets close.
  for (const customerId of new Set(expired.map((e) => e.customer_id)))
    await endRingAccessIfUnsubscribed(ctx, customerId);

  let reminded = 0;
  const due = await subscriptions.findDueReminders(
    nowIso,
    new Date(now.getTime() + REMINDER_BEFORE_MS).toISOString(),
  );
  if (due.length) {
    const customers = new CustomerRepository(ctx.db);
    const plans = new PlanRepository(ctx.db);
    for (const subscription of due) {
      if (!(await subscriptions.claimReminder(subscription.id, nowIso))) continue;
      const customer = await customers.findById(subscription.customer_id);
      const plan = await plans.findById(subscription.plan_id);
      if (!customer || customer.is_active !== 1) continue;
      await ctx.mail.sendTemplate('subscription_reminder', customer.email, {
        first_name: customer.first_name,
        plan_name: plan?.name ?? '',
        expires_at: formatDateFr(subscription.expires_at),
        renew_url: `${ctx.config.publicUrl}/subscribe?plan_id=${subscription.plan_id}&billing=${subscription.billing_cycle}`,
      });
      reminded += 1;
    }
  }

  const abandoned = await new PaymentRepository(ctx.db).cancelAbandoned(
    new Date(now.getTime() - ABANDONED_AFTER_MS).toISOString(),
    nowIso,
  );
  const providerActions = (await runProviderActions(ctx)).done;
  return { expired: expired.length, reminded, abandoned, providerActions };
}
