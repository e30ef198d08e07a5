import { addMonths, paymentReference, planChangeKind } from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { Database } from '../../db/database';
import { notFound } from '../../lib/app-error';
import { CYCLE_LABELS, formatCents, formatDateFr } from '../../lib/format';
import { newId } from '../../lib/ids';
import { CustomerRepository } from '../customers/customer.repository';
import { PlanRepository } from '../plans/plan.repository';
import { endRingAccessIfUnsubscribed } from '../rings/end-access';
import { RingRepository } from '../rings/ring.repository';
import { PaymentRepository, type PaymentRow } from './payment.repository';
import { ProviderActionRepository } from './provider-action.repository';
import {
  queueProviderAction,
  queueProviderCancellation,
  REPLACED_SUBSCRIPTION_PAID,
} from './provider-actions';
import { endOtherSubscriptions, runQueuedActions, type QueuedAction } from './replace-subscriptions';
import { SubscriptionRepository, type SubscriptionRow } from './subscription.repository';

/** Failed renewals in a row before a subscription is suspended. */
export const MAX_FAILED_RENEWALS = 3;

export interface PaymentConfirmation {
  transactionId?: string | null;
  providerSubscriptionId?: string | null;
  /** What the provider says was paid; checked against what was ordered. */
  paidAmountCents?: number;
  paidCurrency?: string;
  /** End of the paid period when the provider states it (Stripe). */
  periodEnd?: Date | null;
}

export type ActivationResult =
  | {
      outcome: 'activated' | 'already';
      payment: PaymentRow;
      subscription: SubscriptionRow | undefined;
      /** Provider calls the activation queued (cancel the replaced subscription…). */
      queued?: QueuedAction[];
    }
  | { outcome: 'mismatch' | 'not_payable'; payment: PaymentRow; subscription?: undefined };

/** The payment row of a renewal the provider charged (or tried to). */
function renewalPayment(
  subscription: SubscriptionRow,
  planName: string,
  input: { provider: string; transactionId: string; amountCents: number; currency: string },
  nowIso: string,
  outcome: {
    status: 'completed' | 'failed';
    failure_reason: string | null;
    metadata: Record<string, unknown>;
  },
): PaymentRow {
  return {
    id: newId(),
    customer_id: subscription.customer_id,
    subscription_id: subscription.id,
    plan_id: subscription.plan_id,
    plan_name: planName,
    billing_cycle: subscription.billing_cycle,
    video_enabled: subscription.video_enabled,
    amount_cents: input.amountCents,
    currency: input.currency.toUpperCase(),
    provider: input.provider,
    status: outcome.status,
    payment_type: 'subscription',
    transaction_id: input.transactionId,
    provider_order_id: null,
    failure_reason: outcome.failure_reason,
    metadata: JSON.stringify(outcome.metadata),
    created_at: nowIso,
    updated_at: nowIso,
    completed_at: outcome.status === 'completed' ? nowIso : null,
  };
}

/** Card subscriptions renew by themselves; one-off payments (PayPal, crypto, test) do not. */
function renewsAutomatically(provider: string): 0 | 1 {
  return provider === 'stripe' ? 1 : 0;
}

/**
 * The one activation path for every provider: a paid order completes its payment record and starts
 * or extends the customer's subscription. Safe to call twice or concurrently for the same payment
 * (return page and webhook): the payment moves to "completed" once, conditionally.
 */
export class PaymentActivation {
  private readonly payments: PaymentRepository;
  private readonly subscriptions: SubscriptionRepository;

  constructor(private readonly ctx: AppContext) {
    this.payments = new PaymentRepository(ctx.db);
    this.subscriptions = new SubscriptionRepository(ctx.db);
  }

  async complete(paymentId: string, confirmation: PaymentConfirmation = {}): Promise<ActivationResult> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const nowIso = now.toISOString();
    const result = await ctx.db.transaction().execute(async (trx): Promise<ActivationResult> => {
      const payment = await this.payments.findById(paymentId, trx);
      if (!payment) throw notFound('Paiement introuvable');
      if (payment.status === 'completed') {
        return {
          outcome: 'already',
          payment,
          subscription: payment.subscription_id
            ? await this.subscriptions.findById(payment.subscription_id, trx)
            : undefined,
        };
      }
      if (payment.status === 'refunded') return { outcome: 'not_payable', payment };
      if (
        confirmation.paidAmountCents !== undefined &&
        (confirmation.paidAmountCents !== payment.amount_cents ||
          (confirmation.paidCurrency ?? '').toUpperCase() !== payment.currency)
      ) {
        const reason = `Montant reçu inattendu : ${formatCents(confirmation.paidAmountCents, confirmation.paidCurrency ?? '?')} au lieu de ${formatCents(payment.amount_cents, payment.currency)}`;
        await this.payments.transition(
          payment.id,
          ['pending'],
          { status: 'failed', failure_reason: reason, updated_at: nowIso },
          trx,
        );
        return { outcome: 'mismatch', payment: { ...payment, status: 'failed', failure_reason: reason } };
      }
      const won = await this.payments.transition(
        payment.id,
        ['pending', 'failed', 'cancelled'],
        {
          status: 'completed',
          failure_reason: null,
          transaction_id: confirmation.transactionId ?? payment.transaction_id,
          completed_at: nowIso,
          updated_at: nowIso,
        },
        trx,
      );
      if (!won) {
        const latest = (await this.payments.findById(payment.id, trx))!;
        return {
          outcome: 'already',
          payment: latest,
          subscription: latest.subscription_id
            ? await this.subscriptions.findById(latest.subscription_id, trx)
            : undefined,
        };
      }

      const plan = payment.plan_id ? await new PlanRepository(trx).findById(payment.plan_id) : undefined;
      if (!plan) throw notFound('Plan introuvable');
      const months = payment.billing_cycle === 'yearly' ? 12 : 1;
      const current = await this.subscriptions.findCurrent(payment.customer_id, nowIso, trx);
      const newProviderRef = confirmation.providerSubscriptionId ?? null;
      const common = {
        billing_cycle: payment.billing_cycle,
        video_enabled: payment.video_enabled,
        auto_renew: renewsAutomatically(payment.provider),
        provider: payment.provider,
        provider_subscription_id: newProviderRef,
        failed_payment_count: 0,
        reminder_sent_at: null,
        cancelled_at: null,
        updated_at: nowIso,
      };
      const queued: QueuedAction[] = [];
      let subscription: SubscriptionRow;
      if (current && planChangeKind(current.plan_id, plan.id) === 'extend') {
        const from = new Date(Math.max(now.getTime(), Date.parse(current.expires_at)));
        const expires = (confirmation.periodEnd ?? addMonths(from, months)).toISOString();
        subscription = { ...current, ...common, expires_at: expires, status: 'active' };
        // The row now follows the new provider subscription: the one it followed must stop charging.
        if (
          current.provider_subscription_id !== newProviderRef &&
          (await queueProviderCancellation(trx, current, 'same_plan_bought_again', nowIso))
        ) {
          queued.push({
            provider: 'stripe',
            action: 'cancel_subscription',
            reference: current.provider_subscription_id!,
          });
        }
        // A new Stripe subscription started billing today, but the time already paid runs to
        // `from`: its next charge moves to the new end, so the customer never pays twice for a day.
        if (payment.provider === 'stripe' && newProviderRef && !confirmation.periodEnd && from > now) {
          await queueProviderAction(
            trx,
            {
              provider: 'stripe',
              action: 'defer_renewal',
              reference: newProviderRef,
              customer_id: payment.customer_id,
              subscription_id: current.id,
              details: { until: expires },
            },
            nowIso,
          );
          queued.push({ provider: 'stripe', action: 'defer_renewal', reference: newProviderRef });
        }
        const others = await endOtherSubscriptions(trx, payment.customer_id, nowIso, {
          exceptId: current.id,
          note: `Remplacé lors d’un paiement le ${formatDateFr(now)}`,
          reason: 'replaced_by_payment',
        });
        queued.push(...others.queued);
        await this.subscriptions.update(
          current.id,
          { ...common, expires_at: expires, status: 'active' },
          trx,
        );
      } else {
        // The old plan ends before the new one starts (one active subscription per customer), and
        // the provider subscription behind it is cancelled: it is never charged again.
        const others = await endOtherSubscriptions(trx, payment.customer_id, nowIso, {
          note: `Remplacé par un changement de plan le ${formatDateFr(now)}`,
          reason: 'replaced_by_plan_change',
        });
        queued.push(...others.queued);
        subscription = {
          id: newId(),
          customer_id: payment.customer_id,
          plan_id: plan.id,
          status: 'active',
          starts_at: nowIso,
          expires_at: (confirmation.periodEnd ?? addMonths(now, months)).toISOString(),
          notes: '',
          created_by_admin_id: null,
          created_at: nowIso,
          ...common,
        };
        await this.subscriptions.insert(subscription, trx);
      }
      await this.payments.update(payment.id, { subscription_id: subscription.id }, trx);
      await new RingRepository(trx).updatePlanForCustomer(
        payment.customer_id,
        plan.slug,
        plan.storage_bytes,
        nowIso,
        trx,
      );
      return {
        outcome: 'activated',
        payment: { ...payment, status: 'completed', subscription_id: subscription.id },
        subscription,
        queued,
      };
    });

    if (result.outcome === 'activated') {
      await runQueuedActions(ctx, result.queued ?? []);
      await this.announce(result.payment, result.subscription!);
    }
    if (result.outcome === 'mismatch') {
      await ctx.systemLog.error('payment', 'Paiement refusé : montant ou devise inattendus', {
        userId: result.payment.customer_id,
        details: {
          payment_id: paymentId,
          provider: result.payment.provider,
          reason: result.payment.failure_reason,
        },
      });
    }
    return result;
  }

  /** Marks an order failed or cancelled (unless it was already paid). */
  async fail(paymentId: string, reason: string, status: 'failed' | 'cancelled' = 'failed'): Promise<boolean> {
    const nowIso = this.ctx.clock.now().toISOString();
    const changed = await this.payments.transition(paymentId, ['pending'], {
      status,
      failure_reason: reason,
      updated_at: nowIso,
    });
    if (changed) {
      const payment = await this.payments.findById(paymentId);
      await this.ctx.systemLog.warning(
        'payment',
        status === 'failed' ? 'Paiement échoué' : 'Paiement annulé',
        {
          userId: payment?.customer_id,
          details: { payment_id: paymentId, provider: payment?.provider, reason },
        },
      );
    }
    return changed;
  }

  /**
   * Whether a charge for this subscription must not renew it: it was cancelled or replaced, its
   * provider cancellation was asked for, or the customer holds another active subscription.
   */
  private async isReplaced(
    subscription: SubscriptionRow,
    chargedRef: string | null,
    trx: Database,
  ): Promise<boolean> {
    if (subscription.status === 'cancelled') return true;
    // The row follows another provider subscription now (the same plan bought again).
    if (chargedRef && chargedRef !== subscription.provider_subscription_id) return true;
    const ref = chargedRef ?? subscription.provider_subscription_id;
    if (
      ref &&
      (await new ProviderActionRepository(trx).find(subscription.provider, 'cancel_subscription', ref, trx))
    )
      return true;
    return this.subscriptions.hasOtherActive(subscription.customer_id, subscription.id, trx);
  }

  /**
   * A renewal the provider charged (Stripe invoice.paid): recorded once. It extends the period, or,
   * for a subscription that was replaced or cancelled, never reactivates it: the payment is recorded,
   * flagged for the back office and its refund queued with the provider ('late').
   */
  async renew(
    subscription: SubscriptionRow,
    input: {
      provider: string;
      transactionId: string;
      amountCents: number;
      currency: string;
      periodEnd: Date | null;
      /** The provider subscription charged (it may no longer be the one the row follows). */
      providerSubscriptionId?: string | null;
      /** What the provider names of the money collected, for a refund. */
      refund?: { paymentIntent: string | null; charge: string | null };
    },
  ): Promise<'renewed' | 'already' | 'late'> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const nowIso = now.toISOString();
    const outcome = await ctx.db.transaction().execute(async (trx) => {
      if (await this.payments.findByTransaction(input.provider, input.transactionId, trx))
        return { kind: 'already' as const };
      const fresh = (await this.subscriptions.findById(subscription.id, trx)) ?? subscription;
      const plan = await new PlanRepository(trx).findById(fresh.plan_id);
      if (await this.isReplaced(fresh, input.providerSubscriptionId ?? null, trx)) {
        const payment = renewalPayment(fresh, plan?.name ?? '', input, nowIso, {
          status: 'completed',
          failure_reason: null,
          metadata: { renewal: true, replaced_subscription: true },
        });
        await this.payments.insert({ ...payment, flag: 'replaced_subscription_paid' }, trx);
        await queueProviderAction(
          trx,
          {
            provider: input.provider,
            action: 'refund_invoice',
            reference: input.transactionId,
            customer_id: fresh.customer_id,
            subscription_id: fresh.id,
            payment_id: payment.id,
            details: {
              payment_intent: input.refund?.paymentIntent ?? null,
              charge: input.refund?.charge ?? null,
              amount_cents: input.amountCents,
            },
          },
          nowIso,
        );
        // The cancellation may never have been asked for (older data): ask now.
        await queueProviderCancellation(
          trx,
          {
            ...fresh,
            provider_subscription_id: input.providerSubscriptionId ?? fresh.provider_subscription_id,
          },
          'charged_after_replacement',
          nowIso,
        );
        return { kind: 'late' as const, paymentId: payment.id };
      }
      const months = fresh.billing_cycle === 'yearly' ? 12 : 1;
      const from = new Date(Math.max(now.getTime(), Date.parse(fresh.expires_at)));
      const expires = (input.periodEnd ?? addMonths(from, months)).toISOString();
      await this.payments.insert(
        renewalPayment(fresh, plan?.name ?? '', input, nowIso, {
          status: 'completed',
          failure_reason: null,
          metadata: { renewal: true },
        }),
        trx,
      );
      await this.subscriptions.update(
        fresh.id,
        {
          status: 'active',
          expires_at: expires,
          failed_payment_count: 0,
          reminder_sent_at: null,
          updated_at: nowIso,
        },
        trx,
      );
      return { kind: 'renewed' as const };
    });
    if (outcome.kind === 'renewed') {
      await ctx.systemLog.info('payment', 'Renouvellement payé', {
        userId: subscription.customer_id,
        details: {
          subscription_id: subscription.id,
          provider: input.provider,
          amount_cents: input.amountCents,
          transaction_id: input.transactionId,
        },
      });
    }
    if (outcome.kind === 'late') {
      await ctx.systemLog.warning('payment', REPLACED_SUBSCRIPTION_PAID, {
        userId: subscription.customer_id,
        details: {
          subscription_id: subscription.id,
          payment_id: outcome.paymentId,
          provider: input.provider,
          amount_cents: input.amountCents,
          transaction_id: input.transactionId,
        },
      });
      await runQueuedActions(ctx, [
        {
          provider: input.provider,
          action: 'cancel_subscription',
          reference: input.providerSubscriptionId ?? subscription.provider_subscription_id ?? '',
        },
        { provider: input.provider, action: 'refund_invoice', reference: input.transactionId },
      ]);
    }
    return outcome.kind;
  }

  /**
   * A charge for a provider subscription SecureRing asked to cancel whose row is gone (its customer
   * was deleted): nothing can be recorded against the customer, but the charge is refunded and the
   * back office told through the system log.
   */
  async lateChargeWithoutRow(
    action: { customer_id: string | null; subscription_id: string | null; reference: string },
    input: {
      provider: string;
      transactionId: string;
      amountCents: number;
      refund?: { paymentIntent: string | null; charge: string | null };
    },
  ): Promise<void> {
    const { ctx } = this;
    const nowIso = ctx.clock.now().toISOString();
    await queueProviderAction(
      ctx.db,
      {
        provider: input.provider,
        action: 'refund_invoice',
        reference: input.transactionId,
        customer_id: action.customer_id,
        subscription_id: action.subscription_id,
        details: {
          payment_intent: input.refund?.paymentIntent ?? null,
          charge: input.refund?.charge ?? null,
          amount_cents: input.amountCents,
        },
      },
      nowIso,
    );
    await ctx.systemLog.warning('payment', REPLACED_SUBSCRIPTION_PAID, {
      details: {
        customer_id: action.customer_id,
        subscription_id: action.subscription_id,
        provider_subscription_id: action.reference,
        amount_cents: input.amountCents,
        transaction_id: input.transactionId,
        customer_deleted: true,
      },
    });
    await runQueuedActions(ctx, [
      { provider: input.provider, action: 'cancel_subscription', reference: action.reference },
      { provider: input.provider, action: 'refund_invoice', reference: input.transactionId },
    ]);
  }

  /** A renewal charge that failed: recorded once; the subscription is suspended after 3 in a row. */
  async renewalFailed(
    subscription: SubscriptionRow,
    input: {
      provider: string;
      transactionId: string;
      amountCents: number;
      currency: string;
      reason: string;
      providerSubscriptionId?: string | null;
    },
  ): Promise<'recorded' | 'already'> {
    const { ctx } = this;
    const nowIso = ctx.clock.now().toISOString();
    const result = await ctx.db.transaction().execute(async (trx) => {
      if (await this.payments.findByTransaction(input.provider, input.transactionId, trx))
        return { outcome: 'already' as const };
      const plan = await new PlanRepository(trx).findById(subscription.plan_id);
      const fresh = (await this.subscriptions.findById(subscription.id, trx)) ?? subscription;
      // A replaced subscription is being cancelled with its provider: its failed charge changes nothing.
      if (await this.isReplaced(fresh, input.providerSubscriptionId ?? null, trx))
        return { outcome: 'already' as const };
      const failures = fresh.failed_payment_count + 1;
      await this.payments.insert(
        renewalPayment(subscription, plan?.name ?? '', input, nowIso, {
          status: 'failed',
          failure_reason: input.reason,
          metadata: { renewal: true, attempt: failures },
        }),
        trx,
      );
      const suspend = failures >= MAX_FAILED_RENEWALS;
      await this.subscriptions.update(
        subscription.id,
        {
          failed_payment_count: failures,
          ...(suspend ? { status: 'suspended' as const } : {}),
          updated_at: nowIso,
        },
        trx,
      );
      return { outcome: 'recorded' as const, suspend, planName: plan?.name ?? '' };
    });
    if (result.outcome === 'recorded') {
      if (result.suspend) await endRingAccessIfUnsubscribed(ctx, subscription.customer_id);
      await ctx.systemLog.write({
        level: result.suspend ? 'error' : 'warning',
        category: 'payment',
        message: result.suspend
          ? 'Abonnement suspendu après des renouvellements échoués'
          : 'Renouvellement échoué',
        userId: subscription.customer_id,
        details: {
          subscription_id: subscription.id,
          reason: input.reason,
          transaction_id: input.transactionId,
        },
      });
      const customer = await new CustomerRepository(ctx.db).findById(subscription.customer_id);
      if (customer) {
        await ctx.mail.sendTemplate('payment_failed', customer.email, {
          first_name: customer.first_name,
          plan_name: result.planName,
          amount: formatCents(input.amountCents, input.currency),
          reason: input.reason,
        });
      }
    }
    return result.outcome;
  }

  private async announce(payment: PaymentRow, subscription: SubscriptionRow): Promise<void> {
    const { ctx } = this;
    await new SubscriptionRepository(ctx.db).deleteSelection(payment.customer_id);
    await ctx.systemLog.info('payment', 'Paiement reçu, abonnement actif', {
      userId: payment.customer_id,
      details: {
        payment_id: payment.id,
        provider: payment.provider,
        amount_cents: payment.amount_cents,
        subscription_id: subscription.id,
        expires_at: subscription.expires_at,
      },
    });
    const customer = await new CustomerRepository(ctx.db).findById(payment.customer_id);
    if (!customer) return;
    await ctx.mail.sendTemplate('payment_confirmation', customer.email, {
      first_name: customer.first_name,
      plan_name: payment.plan_name,
      amount: formatCents(payment.amount_cents, payment.currency),
      billing_cycle: CYCLE_LABELS[payment.billing_cycle],
      reference: paymentReference(payment.id),
      expires_at: formatDateFr(subscription.expires_at),
    });
  }
}
