import type * as Ioredis from 'ioredis';
import type { Redis, RedisOptions } from 'ioredis';
import { loadOnFirstUse } from './load-on-first-use';

/** No Redis command waits longer than this for its answer (then it fails, and its caller degrades). */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

/**
 * How every Redis client of the server is opened. A command fails after one reconnection attempt or
 * {@link REDIS_COMMAND_TIMEOUT_MS}, whichever comes first, instead of waiting up to 15 s while
 * Redis is down; reconnection itself goes on forever (ioredis's default backoff, at most 2 s apart).
 */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 1,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
};

/** The Redis client's package, loaded with the first client (an instance without REDIS_URL has none). */
const loadIoredis = loadOnFirstUse<typeof Ioredis>('ioredis');

export function createRedisClient(url: string): Redis {
  return new (loadIoredis().Redis)(url, REDIS_CLIENT_OPTIONS);
}

/** Whether the client can answer now: callers that can do without Redis skip it otherwise. */
export function isRedisReady(redis: Redis | undefined): redis is Redis {
  return redis?.status === 'ready';
}

/** The least that a logger offers (pino's, Fastify's). */
interface WarnLogger {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

/** How often a Redis link that keeps failing is logged again. */
const REDIS_ERROR_LOG_EVERY_MS = 30_000;

/**
 * Listens to a client's `error` events (without a listener, ioredis prints « missing 'error'
 * handler » for every failed reconnection) and logs the outage once, then every 30 s while it
 * lasts, and its end. Returns a function removing the listeners.
 */
export function watchRedisClient(redis: Redis, logger: WarnLogger, name: string): () => void {
  let lastLoggedAt = 0;
  let down = false;
  const onError = (error: Error) => {
    const now = Date.now();
    if (down && now - lastLoggedAt < REDIS_ERROR_LOG_EVERY_MS) return;
    down = true;
    lastLoggedAt = now;
    const code = (error as { code?: unknown }).code;
    logger.warn(
      { client: name, err: { name: error.name, message: error.message, ...(code ? { code } : {}) } },
      'Redis injoignable : fonctionnement dégradé (limites par instance, diffusion par rattrapage)',
    );
  };
  const onReady = () => {
    if (!down) return;
    down = false;
    logger.info({ client: name }, 'Redis de nouveau joignable');
  };
  redis.on('error', onError);
  redis.on('ready', onReady);
  return () => {
    redis.off('error', onError);
    redis.off('ready', onReady);
  };
}
