import type { AppContext } from '../../app-context';
import { DAY_MS } from '../../lib/clock';
import { SubscriptionRepository } from './subscription.repository';

/** A visitor's plan choice lives as long as its cookie: 30 days after the last change. */
export const VISITOR_SELECTION_TTL_MS = 30 * DAY_MS;

/**
 * Deletes anonymous visitors' plan selections untouched for 30 days (their cookie has expired, so
 * nobody can read them any more). Customers' selections are kept. Safe on several instances.
 */
export async function purgeVisitorSelections(ctx: AppContext): Promise<number> {
  const before = new Date(ctx.clock.now().getTime() - VISITOR_SELECTION_TTL_MS).toISOString();
  return new SubscriptionRepository(ctx.db).deleteStaleVisitorSelections(before);
}
