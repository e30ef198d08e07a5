import type { AppContext } from '../app-context';
import { HOUR_MS, MINUTE_MS } from '../lib/clock';
import { activateDueManualSubscriptions } from '../modules/admin-customers/admin-customers.service';
import { EPHEMERAL_PURGE_INTERVAL_MS, purgeExpiredMessages } from '../modules/messages/ephemeral-purge.job';
import { CallService } from '../modules/calls/calls.service';
import { purgeAbandonedUploads } from '../modules/ring-files/ring-files.tus';
import { runSubscriptionLifecycle } from '../modules/subscriptions/subscription-lifecycle.job';
import { purgeVisitorSelections } from '../modules/subscriptions/visitor-selection-purge.job';
import { PRESENCE_SWEEP_MS } from '../realtime/presence-registry';
import { sweepDeadInstances } from '../realtime/presence';
import type { Job } from './scheduler';

/** Every scheduled job of the server. A feature adds its job here. */
export function buildJobs(ctx: AppContext): Job[] {
  const calls = new CallService(ctx);
  return [
    { name: 'mail-outbox', intervalMs: 5_000, run: () => ctx.mail.processDue() },
    { name: 'session-purge', intervalMs: HOUR_MS, run: () => ctx.sessions.purge() },
    // Anonymous plan choices older than their 30-day cookie.
    { name: 'visitor-selection-purge', intervalMs: HOUR_MS, run: () => purgeVisitorSelections(ctx) },
    // Stream tokens are single use: spent or expired ones go within a minute.
    { name: 'stream-token-purge', intervalMs: MINUTE_MS, run: () => ctx.sessions.purgeStreamTokens() },
    // Delivered mails keep their metadata only (bodies carry links with tokens).
    { name: 'mail-body-purge', intervalMs: HOUR_MS, run: () => ctx.mail.purgeDeliveredBodies() },
    // Expired ephemeral messages leave the database within seconds (queries skip them already).
    {
      name: 'ephemeral-purge',
      intervalMs: EPHEMERAL_PURGE_INTERVAL_MS,
      run: () => purgeExpiredMessages(ctx),
    },
    { name: 'subscription-lifecycle', intervalMs: 10 * MINUTE_MS, run: () => runSubscriptionLifecycle(ctx) },
    // Manual subscriptions set to start later begin on time (within a minute).
    {
      name: 'manual-subscription-start',
      intervalMs: MINUTE_MS,
      run: () => activateDueManualSubscriptions(ctx),
    },
    // Calls left behind by a stopped instance: past their ringing time or with a member gone.
    { name: 'call-sweep', intervalMs: MINUTE_MS, run: () => calls.sweep() },
    // Resumable uploads idle for a day, and reservations of uploads a stopped process left behind.
    { name: 'abandoned-upload-purge', intervalMs: HOUR_MS, run: () => purgeAbandonedUploads(ctx) },
    // Members held by an instance that died (Redis only) are announced offline within 20 s.
    { name: 'presence-sweep', intervalMs: PRESENCE_SWEEP_MS, run: () => sweepDeadInstances(ctx) },
  ];
}
