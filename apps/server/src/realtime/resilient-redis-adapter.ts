import { RedisAdapter, type RedisAdapterOptions } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import { isRedisReady } from '../lib/redis-client';

/**
 * How long a question to the other instances (fetchSockets, serverSideEmit with an answer) waits
 * for them: below the 5 s a request may take, so a call that asks them still answers in time.
 */
export const ADAPTER_REQUESTS_TIMEOUT_MS = 2500;

type AdapterClientMethod = 'publish' | 'psubscribe' | 'subscribe' | 'punsubscribe' | 'unsubscribe';

/**
 * Makes the Redis clients the adapter uses safe while Redis is down. The adapter calls `publish`
 * (every broadcast, socket leave/join/disconnect order, server-side emit) and its subscriptions
 * without handling their promises: each failure was an unhandled rejection that ended the process
 * (issue 26). Here every such call is caught and reported, and a publish while the link is down is
 * dropped at once rather than queued: the sockets of the other instances get what they missed from
 * the database (catch-up by sequence number), never from a backlog replayed late.
 */
export function guardAdapterClient(client: Redis, onError: (error: unknown) => void): Redis {
  const methods: AdapterClientMethod[] = [
    'publish',
    'psubscribe',
    'subscribe',
    'punsubscribe',
    'unsubscribe',
  ];
  const target = client as unknown as Record<AdapterClientMethod, (...args: unknown[]) => Promise<unknown>>;
  for (const method of methods) {
    const original = target[method].bind(client);
    target[method] = (...args: unknown[]) => {
      if (method === 'publish' && !isRedisReady(client)) return Promise.resolve(0);
      const result = original(...args);
      return result.catch((error: unknown) => {
        onError(error);
        return 0;
      });
    };
  }
  return client;
}

/**
 * The socket.io Redis (pub/sub) adapter, speaking only for this instance while its link is down:
 * asking the others how many they are would wait for Redis, so the answer is "only me" and
 * fetchSockets and friends answer with this instance's sockets at once.
 */
export class ResilientRedisAdapter extends RedisAdapter {
  override serverCount(): Promise<number> {
    const pub = this.pubClient as Redis;
    if (!isRedisReady(pub) || !isRedisReady(this.subClient as Redis)) return Promise.resolve(1);
    return super.serverCount().catch(() => 1);
  }
}

/** An adapter constructor for `io.adapter()`, like the package's createAdapter. */
export function createResilientAdapter(
  pubClient: Redis,
  subClient: Redis,
  options: Partial<RedisAdapterOptions>,
): (nsp: unknown) => ResilientRedisAdapter {
  return function (nsp: unknown) {
    return new ResilientRedisAdapter(nsp, pubClient, subClient, {
      requestsTimeout: ADAPTER_REQUESTS_TIMEOUT_MS,
      ...options,
    });
  };
}
