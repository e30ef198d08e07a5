import type { AppContext } from '../app-context';
import { HOUR_MS } from '../lib/clock';
import type { Job } from './scheduler';

/** Every scheduled job of the server. A feature adds its job here. */
export function buildJobs(ctx: AppContext): Job[] {
  return [
    { name: 'mail-outbox', intervalMs: 5_000, run: () => ctx.mail.processDue() },
    { name: 'session-purge', intervalMs: HOUR_MS, run: () => ctx.sessions.purge() },
  ];
}
