/**
 * When the server answers 503 with Retry-After (a dependency is down: database or Redis, issue 26),
 * the call was not served and may be sent again: the client retries a few times with growing
 * delays and tells the person what is happening meanwhile (ServiceStatusBanner).
 */

/** Retries after the first 503 before the error reaches the page. */
export const SERVICE_RETRIES = 3;

/** Fired on window when a call waits to be retried (detail: the delay in ms), and when one succeeds again. */
export const SERVICE_UNAVAILABLE_EVENT = 'securering:service-unavailable';
export const SERVICE_RESTORED_EVENT = 'securering:service-restored';

/**
 * The delay before retry number `attempt` (0 for the first): the server's Retry-After (seconds)
 * when it gives one, otherwise 1, 2, 4 s; at most 8 s, spread by up to a quarter at random (`jitter`
 * in [0, 1)) so that the pages of one outage do not all come back at the same instant. Undefined:
 * no retry (not a 503, or no Retry-After — the server did not say it would be served later, or
 * retries are spent).
 */
export function serviceRetryDelayMs(
  status: number,
  retryAfter: string | null,
  attempt: number,
  jitter: number = Math.random(),
): number | undefined {
  if (status !== 503 || retryAfter === null || attempt >= SERVICE_RETRIES) return undefined;
  const seconds = Number(retryAfter);
  const base = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000;
  const grown = Math.min(8000, base * 2 ** attempt);
  return Math.round(grown * (1 + jitter / 4));
}
