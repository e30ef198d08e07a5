import { LOG_LEVELS, type LogCategory, type LogLevel } from '@securering/contract';
import type { SessionAudience } from '../../db/schema';

/** Who posted a browser report: the audience of a live bearer session, or nobody. */
export type ClientLogAuthor = Exclude<SessionAudience, 'stream'> | undefined;

/** The highest level a browser report may carry: critical belongs to the server's own events. */
const MAX_LEVEL: Record<'anonymous' | 'session', LogLevel> = { anonymous: 'warning', session: 'error' };

function capLevel(level: LogLevel, max: LogLevel): LogLevel {
  return LOG_LEVELS.indexOf(level) > LOG_LEVELS.indexOf(max) ? max : level;
}

/**
 * Where a browser report is filed. Anonymous reports go to the `client` category at `warning` at
 * most, whatever they claim, so nobody can write `critical` entries in `admin`, `security` or
 * `payment`. Reports with a live session keep their category (only an admin session may file in
 * `admin`) and are capped at `error`.
 */
export function placeClientLog(
  claimed: { level: LogLevel; category: LogCategory },
  author: ClientLogAuthor,
): { level: LogLevel; category: LogCategory } {
  if (!author) return { level: capLevel(claimed.level, MAX_LEVEL.anonymous), category: 'client' };
  const category = claimed.category === 'admin' && author !== 'admin' ? 'client' : claimed.category;
  return { level: capLevel(claimed.level, MAX_LEVEL.session), category };
}
