import { PAYMENT_FLAG_LABELS } from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { Database } from '../../db/database';
import { newId } from '../../lib/ids';
import { loadStripeSettings } from '../../providers/payments/payment-settings';
import { ProviderError } from '../../providers/payments/provider-error';
import { StripeGateway } from '../../providers/payments/stripe-gateway';
import { PaymentRepository } from './payment.repository';
import { ProviderActionRepository, type ProviderActionRow } from './provider-action.repository';
import type { SubscriptionRow } from './subscription.repository';

/** The back office's words for a payment received for a subscription that was replaced or cancelled. */
export const REPLACED_SUBSCRIPTION_PAID = PAYMENT_FLAG_LABELS.replaced_subscription_paid;

type ActionInput = Pick<ProviderActionRow, 'provider' | 'action' | 'reference'> &
  Partial<Pick<ProviderActionRow, 'customer_id' | 'subscription_id' | 'payment_id'>> & {
    details?: Record<string, unknown>;
  };

/** Queues a provider call in the caller's transaction (once per provider object and action). */
export async function queueProviderAction(trx: Database, input: ActionInput, nowIso: string): Promise<void> {
  await new ProviderActionRepository(trx).queue(
    {
      id: newId(),
      provider: input.provider,
      action: input.action,
      reference: input.reference,
      customer_id: input.customer_id ?? null,
      subscription_id: input.subscription_id ?? null,
      payment_id: input.payment_id ?? null,
      details: JSON.stringify(input.details ?? {}),
      status: 'pending',
      attempts: 0,
      last_error: null,
      created_at: nowIso,
      updated_at: nowIso,
      done_at: null,
    },
    trx,
  );
}

/**
 * A subscription SecureRing ended (replaced by another plan, ended by an administrator, or its
 * customer deleted) must never be charged again: queue its cancellation with the provider that
 * renews it. Only Stripe subscriptions renew by themselves; PayPal and crypto payments are one-off
 * orders (no billing agreement exists), so nothing is left to cancel there. True when queued.
 */
export async function queueProviderCancellation(
  trx: Database,
  subscription: Pick<SubscriptionRow, 'id' | 'customer_id' | 'provider' | 'provider_subscription_id'>,
  reason: string,
  nowIso: string,
): Promise<boolean> {
  if (subscription.provider !== 'stripe' || !subscription.provider_subscription_id) return false;
  await queueProviderAction(
    trx,
    {
      provider: 'stripe',
      action: 'cancel_subscription',
      reference: subscription.provider_subscription_id,
      customer_id: subscription.customer_id,
      subscription_id: subscription.id,
      details: { reason },
    },
    nowIso,
  );
  return true;
}

/** A Stripe answer that means the subscription is already gone: nothing is left to cancel. */
function alreadyCancelled(error: unknown): boolean {
  if (!(error instanceof ProviderError)) return false;
  return (
    error.status === 404 ||
    /already (been )?cancel|status of canceled|no such subscription/i.test(error.message)
  );
}

const ACTION_LOG: Record<ProviderActionRow['action'], { done: string; failed: string }> = {
  cancel_subscription: {
    done: 'Abonnement Stripe résilié (abonnement remplacé ou supprimé)',
    failed: 'Résiliation Stripe en attente : nouvel essai par la tâche planifiée',
  },
  refund_invoice: {
    done: 'Paiement remboursé (abonnement remplacé)',
    failed: 'Remboursement Stripe en attente : nouvel essai par la tâche planifiée',
  },
  defer_renewal: {
    done: 'Prochain prélèvement Stripe reporté à la fin de la période payée',
    failed: 'Report du prélèvement Stripe en attente : nouvel essai par la tâche planifiée',
  },
};

/**
 * Runs pending provider actions (only `ids` when given): each success is marked done, each failure
 * stays pending with its error, for the lifecycle job to retry. Never throws: a provider outage
 * must not fail the request or the webhook that queued the action. Returns how many succeeded.
 */
export async function runProviderActions(
  ctx: AppContext,
  ids?: string[],
): Promise<{ done: number; failed: number }> {
  const repo = new ProviderActionRepository(ctx.db);
  const pending = await repo.findPending(ids);
  let done = 0;
  let failed = 0;
  let gateway: StripeGateway | undefined;
  for (const action of pending) {
    try {
      if (action.provider !== 'stripe') throw new Error(`unsupported provider ${action.provider}`);
      gateway ??= new StripeGateway(await loadStripeSettings(ctx.settings, ctx.config));
      const details = JSON.parse(action.details || '{}') as {
        payment_intent?: string | null;
        charge?: string | null;
        until?: string;
      };
      let result: Record<string, unknown> = {};
      if (action.action === 'cancel_subscription') {
        try {
          const sub = await gateway.cancelSubscription(action.reference);
          result = { stripe_status: sub.status };
        } catch (error) {
          if (!alreadyCancelled(error)) throw error;
          result = { stripe_status: 'already_canceled' };
        }
      } else if (action.action === 'refund_invoice') {
        const refund = await gateway.refundInvoice(action.reference, {
          paymentIntent: details.payment_intent ?? null,
          charge: details.charge ?? null,
        });
        result = { refund_id: refund.id, refund_status: refund.status };
      } else {
        await gateway.deferRenewal(action.reference, new Date(details.until ?? ''));
        result = { until: details.until };
      }
      const nowIso = ctx.clock.now().toISOString();
      if (!(await repo.markDone(action.id, nowIso))) continue;
      if (action.action === 'refund_invoice' && action.payment_id) {
        await new PaymentRepository(ctx.db).transition(action.payment_id, ['completed'], {
          status: 'refunded',
          updated_at: nowIso,
        });
      }
      done += 1;
      await ctx.systemLog.info('payment', ACTION_LOG[action.action].done, {
        userId: action.customer_id ?? undefined,
        details: {
          action: action.action,
          reference: action.reference,
          subscription_id: action.subscription_id,
          payment_id: action.payment_id,
          ...result,
        },
      });
    } catch (error) {
      failed += 1;
      const message = (error as Error).message;
      await repo.markFailed(action.id, message, ctx.clock.now().toISOString());
      await ctx.systemLog.write({
        level: 'error',
        category: 'payment',
        message: ACTION_LOG[action.action].failed,
        userId: action.customer_id ?? undefined,
        details: {
          action: action.action,
          reference: action.reference,
          subscription_id: action.subscription_id,
          attempts: action.attempts + 1,
          error: message,
        },
      });
    }
  }
  return { done, failed };
}
