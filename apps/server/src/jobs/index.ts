import type { AppContext } from '../app-context';
import { HOUR_MS, MINUTE_MS } from '../lib/clock';
import { activateDueManualSubscriptions } from '../modules/admin-customers/admin-customers.service';
import { runSubscriptionLifecycle } from '../modules/subscriptions/subscription-lifecycle.job';
import { purgeVisitorSelections } from '../modules/subscriptions/visitor-selection-purge.job';
import type { Job } from './scheduler';

/** Every scheduled job of the server. A feature adds its job here. */
export function buildJobs(ctx: AppContext): Job[] {
  return [
    { name: 'mail-outbox', intervalMs: 5_000, run: () => ctx.mail.processDue() },
    { name: 'session-purge', intervalMs: HOUR_MS, run: () => ctx.sessions.purge() },
    // Anonymous plan choices older than their 30-day cookie.
    { name: 'visitor-selection-purge', intervalMs: HOUR_MS, run: () => purgeVisitorSelections(ctx) },
    // Stream tokens are single use: spent or expired ones go within a minute.
    { name: 'stream-token-purge', intervalMs: MINUTE_MS, run: () => ctx.sessions.purgeStreamTokens() },
    // Delivered mails keep their metadata only (bodies carry links with tokens).
    { name: 'mail-body-purge', intervalMs: HOUR_MS, run: () => ctx.mail.purgeDeliveredBodies() },
    { name: 'subscription-lifecycle', intervalMs: 10 * MINUTE_MS, run: () => runSubscriptionLifecycle(ctx) },
    // Manual subscriptions set to start later begin on time (within a minute).
    {
      name: 'manual-subscription-start',
      intervalMs: MINUTE_MS,
      run: () => activateDueManualSubscriptions(ctx),
    },
  ];
}
