import type * as RedisAdapterPackage from '@socket.io/redis-adapter';
import type { RedisAdapterOptions } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import { loadOnFirstUse } from '../lib/load-on-first-use';
import { isRedisReady } from '../lib/redis-client';
import type { PublishWindow } from './publish-window';

/**
 * How long a question to the other instances (fetchSockets, serverSideEmit with an answer) waits
 * for them: below the 5 s a request may take, so a call that asks them still answers in time.
 */
export const ADAPTER_REQUESTS_TIMEOUT_MS = 2500;

type AdapterClientMethod = 'publish' | 'psubscribe' | 'subscribe' | 'punsubscribe' | 'unsubscribe';
type SubscriptionKind = 'subscribe' | 'psubscribe';

/** Which subscriptions each of the adapter's calls adds (or, for the unsubscribes, removes). */
const SUBSCRIPTION_OF: Partial<Record<AdapterClientMethod, { kind: SubscriptionKind; adds: boolean }>> = {
  subscribe: { kind: 'subscribe', adds: true },
  psubscribe: { kind: 'psubscribe', adds: true },
  unsubscribe: { kind: 'subscribe', adds: false },
  punsubscribe: { kind: 'psubscribe', adds: false },
};

/** A subscription that failed while the link was up is tried again after this long. */
const RESUBSCRIBE_RETRY_MS = 1000;

/** The channel names among a subscribe call's arguments (a list, or several strings). */
function channelsOf(args: unknown[]): string[] {
  return args.flat().filter((arg): arg is string => typeof arg === 'string');
}

/**
 * Makes the Redis clients the adapter uses safe while Redis is down. The adapter calls `publish`
 * (every broadcast, socket leave/join/disconnect order, server-side emit) and its subscriptions
 * without handling their promises: each failure was an unhandled rejection that ended the process
 * (issue 26). Here every such call is caught and reported, and a publish while the link is down is
 * dropped at once rather than queued: the sockets of the other instances get what they missed from
 * the database (catch-up by sequence number), never from a backlog replayed late.
 *
 * Each publish that goes out is kept a few seconds in `published` (see publish-window.ts).
 *
 * A subscription that failed is made again when the link is (back) up: the adapter subscribes only
 * once, in its constructor, and ioredis re-subscribes after a reconnection only the channels whose
 * subscription succeeded — an instance started while Redis was down never listened (issue 26).
 * The new SUBSCRIBE goes out in a `ready` listener registered before any other, so a command sent
 * by a later listener on the same link (the PING of catch-up-signal.ts) is answered after it.
 */
export function guardAdapterClient(
  client: Redis,
  onError: (error: unknown) => void,
  published?: PublishWindow,
): Redis {
  const methods: AdapterClientMethod[] = [
    'publish',
    'psubscribe',
    'subscribe',
    'punsubscribe',
    'unsubscribe',
  ];
  const target = client as unknown as Record<AdapterClientMethod, (...args: unknown[]) => Promise<unknown>>;
  /** Channels whose last subscription attempt failed (none in flight, none unsubscribed since). */
  const failed: Record<SubscriptionKind, Set<string>> = { subscribe: new Set(), psubscribe: new Set() };
  let retry: NodeJS.Timeout | undefined;
  const subscribeFailed = () => {
    clearTimeout(retry);
    retry = undefined;
    if (!isRedisReady(client)) return;
    for (const kind of ['subscribe', 'psubscribe'] as const)
      if (failed[kind].size > 0) void target[kind]([...failed[kind]]);
  };
  for (const method of methods) {
    const original = target[method].bind(client);
    const subscription = SUBSCRIPTION_OF[method];
    target[method] = (...args: unknown[]) => {
      if (method === 'publish') {
        if (!isRedisReady(client)) return Promise.resolve(0);
        published?.record(args[0], args[1]);
      }
      const channels = subscription ? channelsOf(args) : [];
      if (subscription) for (const channel of channels) failed[subscription.kind].delete(channel);
      const result = original(...args);
      return result.catch((error: unknown) => {
        onError(error);
        if (subscription?.adds) {
          for (const channel of channels) failed[subscription.kind].add(channel);
          // The link is up (a timeout, not an outage): try again soon rather than at its next return.
          if (isRedisReady(client) && !retry) {
            retry = setTimeout(subscribeFailed, RESUBSCRIBE_RETRY_MS);
            retry.unref();
          }
        }
        return 0;
      });
    };
  }
  client.on('ready', subscribeFailed);
  client.on('end', () => clearTimeout(retry));
  return client;
}

/** The adapter's private parts this file uses (its broadcast channel prefix and message handler). */
interface RedisAdapterInternals {
  channel: string;
  onmessage(pattern: unknown, channel: string, message: Buffer): void;
}

/** The socket.io Redis adapter's package, loaded with the first adapter (only with REDIS_URL). */
const loadRedisAdapter = loadOnFirstUse<typeof RedisAdapterPackage>('@socket.io/redis-adapter');

/**
 * The socket.io Redis (pub/sub) adapter, speaking only for this instance while its link is down:
 * asking the others how many they are would wait for Redis, so the answer is "only me" and
 * fetchSockets and friends answer with this instance's sockets at once. It can also hand over what
 * it published lately and apply what another instance hands over (publish-window.ts).
 */
const defineResilientRedisAdapter = ({ RedisAdapter }: typeof RedisAdapterPackage) =>
  class ResilientRedisAdapter extends RedisAdapter {
    published: PublishWindow | undefined;

    override serverCount(): Promise<number> {
      const pub = this.pubClient as Redis;
      if (!isRedisReady(pub) || !isRedisReady(this.subClient as Redis)) return Promise.resolve(1);
      return super.serverCount().catch(() => 1);
    }

    /** This namespace's broadcasts published in the last `msAgo` ms, as [channel, base64 payload]. */
    publishedSince(msAgo: number): Array<[string, string]> {
      const prefix = (this as unknown as RedisAdapterInternals).channel;
      return (this.published?.since(msAgo, prefix) ?? []).map((entry) => [
        entry.channel,
        entry.message.toString('base64'),
      ]);
    }

    /**
     * Delivers to this instance's sockets broadcasts another instance published while this one was
     * not listening, exactly as if Redis had carried them (same rooms and exceptions; the adapter
     * ignores this instance's own messages, other namespaces and rooms with no socket here).
     */
    replay(entries: ReadonlyArray<readonly [string, string]>): number {
      const internals = this as unknown as RedisAdapterInternals;
      let applied = 0;
      for (const [channel, payload] of entries) {
        if (typeof channel !== 'string' || typeof payload !== 'string') continue;
        try {
          internals.onmessage(null, channel, Buffer.from(payload, 'base64'));
          applied++;
        } catch {
          // A payload that does not decode is skipped, like a malformed message from Redis.
        }
      }
      return applied;
    }
  };

export type ResilientRedisAdapter = InstanceType<ReturnType<typeof defineResilientRedisAdapter>>;
let resilientRedisAdapter: ReturnType<typeof defineResilientRedisAdapter> | undefined;

/** Whether `adapter` is this file's adapter (the instance's adapter with REDIS_URL). */
export function isResilientRedisAdapter(adapter: unknown): adapter is ResilientRedisAdapter {
  return resilientRedisAdapter !== undefined && adapter instanceof resilientRedisAdapter;
}

/** An adapter constructor for `io.adapter()`, like the package's createAdapter. */
export function createResilientAdapter(
  pubClient: Redis,
  subClient: Redis,
  options: Partial<RedisAdapterOptions>,
  published?: PublishWindow,
): (nsp: unknown) => ResilientRedisAdapter {
  resilientRedisAdapter ??= defineResilientRedisAdapter(loadRedisAdapter());
  const Adapter = resilientRedisAdapter;
  return function (nsp: unknown) {
    const adapter = new Adapter(nsp, pubClient, subClient, {
      requestsTimeout: ADAPTER_REQUESTS_TIMEOUT_MS,
      ...options,
    });
    adapter.published = published;
    return adapter;
  };
}
