import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { RealtimeHub } from './realtime-hub';
import type { TypedServer } from './realtime-server';

/** Pages answer a catch_up at a random moment within this, so that they do not all ask at once. */
export const CATCH_UP_SPREAD_MS = 3000;
/** The longest the subscription check waits before the signal goes out anyway. */
const SUBSCRIBED_CHECK_MS = 2000;

/**
 * Resolves once the subscriber link has re-subscribed. ioredis sends the (P)SUBSCRIBE commands of
 * a reconnected link before its `ready` listeners run; a PING on the same link is answered after
 * them, so from its answer on, every publish reaches this instance. Bounded: a link that does not
 * answer within SUBSCRIBED_CHECK_MS does not hold the signal back.
 */
async function subscribedAgain(subClient: Redis): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    subClient.ping().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SUBSCRIBED_CHECK_MS);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * No lost push after Redis returns (issue 26): when this instance's adapter links come back, events
 * published meanwhile — by this instance while its publish link was down, or by another before this
 * one listened again — never reached some pages. Once this instance listens again:
 * 1. it asks the other instances for what they published since its link went down (`replayMissed`,
 *    publish-window.ts) and delivers it to its sockets as pushes: a message sent on an instance
 *    that was back first arrives live, not only at the next check;
 * 2. every page of every instance is told to check its sequence numbers (`catch_up`, through the
 *    adapter; the instance's own pages get it even if the publish fails), for what no instance
 *    could publish while its own link was down. What was stored before the check is read by it;
 *    what is stored after is pushed.
 * Returns the unsubscribe function.
 */
export function signalCatchUpOnReconnect(
  hub: Pick<RealtimeHub, 'onSharedLinkChange'>,
  io: TypedServer,
  subClient: Redis,
  logger: Pick<FastifyBaseLogger, 'info'>,
  replayMissed?: (msAgo: number) => Promise<number>,
): () => void {
  let cameBackAt = 0;
  let downSince: number | undefined;
  return hub.onSharedLinkChange((up) => {
    if (!up) {
      downSince ??= Date.now();
      return;
    }
    const at = ++cameBackAt;
    void subscribedAgain(subClient).then(async () => {
      // Gone again meanwhile, or a later return will signal: skip this one.
      if (at !== cameBackAt || subClient.status !== 'ready') return;
      const missedMs = downSince === undefined ? 0 : Date.now() - downSince;
      downSince = undefined;
      const replayed = replayMissed ? await replayMissed(missedMs).catch(() => 0) : 0;
      logger.info({ sockets: io.engine.clientsCount, replayed }, 'Redis link back: pages told to catch up');
      io.emit('catch_up', { withinMs: CATCH_UP_SPREAD_MS });
    });
  });
}
