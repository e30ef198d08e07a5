import type { AppContext } from '../../app-context';
import type { Database } from '../../db/database';
import { ProviderActionRepository, type ProviderActionRow } from './provider-action.repository';
import { queueProviderCancellation, runProviderActions } from './provider-actions';
import { SubscriptionRepository, type SubscriptionRow } from './subscription.repository';

/** A queued provider call, by what it targets (run once the transaction has committed). */
export type QueuedAction = Pick<ProviderActionRow, 'provider' | 'action' | 'reference'>;

/**
 * Ends every subscription of the customer that still holds a place or may still be charged, except
 * `exceptId`, inside the caller's transaction: running ones are cancelled, lapsed ones expire,
 * and each one a provider renews gets its cancellation queued (same transaction, so the local change
 * and the provider call are never separated). Callers end the old subscriptions before activating a
 * new one: the partial unique index allows one active subscription per customer.
 */
export async function endOtherSubscriptions(
  trx: Database,
  customerId: string,
  nowIso: string,
  options: { exceptId?: string; note: string; reason: string },
): Promise<{ ended: SubscriptionRow[]; queued: QueuedAction[] }> {
  const subscriptions = new SubscriptionRepository(trx);
  const ended: SubscriptionRow[] = [];
  const queued: QueuedAction[] = [];
  for (const row of await subscriptions.findOpen(customerId, trx)) {
    if (row.id === options.exceptId) continue;
    const running = Date.parse(row.expires_at) > Date.parse(nowIso);
    const status: SubscriptionRow['status'] =
      row.status === 'expired' ? 'expired' : running ? 'cancelled' : 'expired';
    const moved = await subscriptions.transition(
      row.id,
      row.status,
      {
        status,
        cancelled_at: status === 'cancelled' ? nowIso : row.cancelled_at,
        auto_renew: 0,
        notes: row.notes ? `${row.notes}\n${options.note}` : options.note,
        updated_at: nowIso,
      },
      trx,
    );
    if (!moved) continue;
    ended.push({ ...row, status });
    if (await queueProviderCancellation(trx, row, options.reason, nowIso)) {
      queued.push({
        provider: 'stripe',
        action: 'cancel_subscription',
        reference: row.provider_subscription_id!,
      });
    }
  }
  return { ended, queued };
}

/** After the commit: runs the provider calls just queued; a failure stays queued for the job. */
export async function runQueuedActions(ctx: AppContext, queued: QueuedAction[]): Promise<void> {
  if (queued.length === 0) return;
  try {
    const ids = await new ProviderActionRepository(ctx.db).findPendingIds(queued);
    await runProviderActions(ctx, ids);
  } catch (error) {
    // The actions stay pending: the lifecycle job runs them.
    ctx.logger.error({ err: error }, 'provider actions could not run after commit');
  }
}
