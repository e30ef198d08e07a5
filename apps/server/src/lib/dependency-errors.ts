/**
 * Failures of a shared dependency (the database, Redis) as opposed to bugs: they answer 503 with
 * Retry-After rather than 500, and never end the process (issue 26).
 */

/** Which dependency could not be reached. */
export type UnavailableDependency = 'database' | 'redis';

/** Seconds a client is told to wait before trying again after a 503. */
export const DEPENDENCY_RETRY_AFTER_SEC = 5;

/** Socket-level codes: the peer refused, reset or never answered. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs of a server going away or refusing connections (class 08, 57P01–57P03), or
 * too busy to answer in time: 57014, a statement cancelled by `statement_timeout` (PG_STATEMENT_
 * TIMEOUT_MS), for instance while waiting for a row lock under a burst of sends.
 */
const POSTGRES_UNAVAILABLE = /^(08\d{3}|57P0[123]|57014)$/;

/** node-postgres and pg-pool messages for a lost or timed-out connection (they carry no code). */
const POSTGRES_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/** ioredis messages of a link that is down (its errors have no code either). */
const REDIS_MESSAGES = [
  'Connection is closed',
  'Command timed out',
  "Stream isn't writeable",
  'Reached the max retries per request limit',
];

/**
 * Which dependency a failure says is unreachable, or undefined for any other error (a bug, bad
 * data, a constraint): those stay 500s and keep their stack in the log.
 */
export function unavailableDependency(error: unknown): UnavailableDependency | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { name?: unknown; code?: unknown; message?: unknown; stack?: unknown };
  const name = typeof e.name === 'string' ? e.name : '';
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((m) => message.includes(m))) return 'redis';
  if (POSTGRES_UNAVAILABLE.test(code) || POSTGRES_MESSAGES.some((m) => message.includes(m)))
    return 'database';
  // SQLite still locked by another writer after its busy timeout: try again shortly.
  if (code === 'SQLITE_BUSY') return 'database';
  if (NETWORK_CODES.has(code)) {
    const stack = typeof e.stack === 'string' ? e.stack : '';
    return /ioredis|redis/i.test(stack) ? 'redis' : 'database';
  }
  return undefined;
}

/**
 * What the process does with an error nobody handled. A dependency's failure never ends it: the
 * dependency comes back and the clients retry. A promise rejected by anything else is logged and
 * left (no code was interrupted half-way). An exception thrown by anything else unwound a callback
 * half-way and left its state unknown: that is the one fatal case, the process exits and its
 * supervisor starts a clean one.
 */
export function processErrorOutcome(error: unknown, kind: 'rejection' | 'exception'): 'continue' | 'exit' {
  if (unavailableDependency(error) !== undefined) return 'continue';
  return kind === 'exception' ? 'exit' : 'continue';
}
