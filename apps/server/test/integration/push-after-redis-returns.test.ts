import type { TJoinRingAck, TMessage, TNewMessageEvent } from '@securering/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { canStartRedis, startOwnRedis, type OwnRedis } from '../redis-server';
import { listen, type TestSocket } from '../socket-client';
import { tcpRelay, type TcpRelay } from '../tcp-relay';

/** Resolves when `condition` holds (polled), rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * What a Ring page does with its socket (apps/web/src/lib/realtime.ts): it keeps the highest
 * sequence number of the room, takes pushes, and on `catch_up` joins again naming that number,
 * applying what the answer says it missed.
 */
function pageOn(socket: TestSocket, ringId: string, since: number, answersCatchUp = true) {
  const seqs = new Set<number>();
  let last = since;
  const take = (seq: number) => {
    seqs.add(seq);
    last = Math.max(last, seq);
  };
  socket.on('new_message', (event: TNewMessageEvent) => take(event.seq));
  socket.on('catch_up', () => {
    if (!answersCatchUp) return;
    void socket
      .emitWithAck('join_ring', { ringId, catchUp: [{ conversationId: 'room:general', since: last }] })
      .then((ack: TJoinRingAck) => {
        if (ack.ok)
          for (const m of ack.missed ?? []) for (const message of m.messages as TMessage[]) take(message.seq);
      })
      // The socket closed while the check was on its way (the test is over).
      .catch(() => undefined);
  });
  return { seqs };
}

/** Redis dies; it comes back, and A is back on it first, while B (behind the shut relay) is not. */
async function outageWithABackFirst(own: OwnRedis, relay: TcpRelay, a: TestApp, b: TestApp) {
  relay.shut();
  await own.kill();
  await until(
    () => !a.ctx.realtime.isShared && !b.ctx.realtime.isShared,
    5000,
    'both instances see the outage',
  );
  await own.start();
  await until(() => a.ctx.realtime.isShared, 10_000, 'instance A back on Redis');
}

describe.skipIf(!canStartRedis)(
  'no lost push after Redis returns (two instances, a Redis of the test’s own)',
  () => {
    // Each test's own Redis, relay, instances and sockets, closed after it.
    let redis: OwnRedis | undefined;
    let relay: TcpRelay | undefined;
    let apps: TestApp[] = [];
    let sockets: TestSocket[] = [];

    afterEach(async () => {
      for (const socket of sockets) socket.close();
      relay?.open();
      await redis?.start().catch(() => undefined);
      for (const app of apps.reverse()) await app.close().catch(() => undefined);
      await relay?.close();
      await redis?.stop();
      redis = undefined;
      relay = undefined;
      apps = [];
      sockets = [];
    });

    /**
     * Two instances on a Redis of the test's own: A straight on it, B through a relay the test can
     * hold shut (B then comes back to Redis later than A, as when their reconnection timers differ).
     * A Ring with one member, whose page is on B.
     */
    async function twoInstancesWithPageOnB(prefix: string) {
      const own = await startOwnRedis();
      redis = own;
      const relayToB = await tcpRelay(own.port);
      relay = relayToB;
      const a = await buildTestApp({ redisUrl: own.url, redisKeyPrefix: prefix });
      apps.push(a);
      const b = await buildTestApp({
        database: a.database,
        redisUrl: `redis://127.0.0.1:${relayToB.port}`,
        redisKeyPrefix: prefix,
      });
      apps.push(b);
      await until(() => a.ctx.realtime.isShared && b.ctx.realtime.isShared, 5000, 'both instances on Redis');
      const urlB = await listen(b.app);
      const { owner, members, ringId } = await ringWithMembers(a, 1);
      await members[0]!.publish();
      expect((await owner.rotate()).statusCode).toBe(200);
      const { socket } = await joinedSocket(b, urlB, members[0]!);
      sockets.push(socket);
      return { own, relayToB, a, b, owner, ringId, socket };
    }

    it('a message sent while the other instance is not yet listening again reaches its page with no further message', async () => {
      const { own, relayToB, a, b, owner, ringId, socket } = await twoInstancesWithPageOnB('lost-push:');

      // The member's page is on instance B; the owner sends through instance A.
      const page = pageOn(socket, ringId, 0);
      const first = await owner.send('avant la panne');
      expect(first.statusCode).toBe(200);
      const firstSeq = first.json().message.seq as number;
      await until(() => page.seqs.has(firstSeq), 5000, 'a push across instances before the outage');

      // Redis dies; it comes back, and A is back on it first, while B is not listening yet.
      await outageWithABackFirst(own, relayToB, a, b);
      const quiet = await owner.send('juste après le retour de Redis');
      expect(quiet.statusCode).toBe(200);
      const quietSeq = quiet.json().message.seq as number;

      // B comes back; nobody sends anything more, yet the page gets the message within seconds.
      relayToB.open();
      await until(() => b.ctx.realtime.isShared, 10_000, 'instance B back on Redis');
      await until(() => page.seqs.has(quietSeq), 10_000, 'the page on B caught up with the quiet message');
    }, 60_000);

    it('a message sent on the instance back first is pushed live to a page on the instance back later (no catch-up check)', async () => {
      const { own, relayToB, a, b, owner, ringId, socket } = await twoInstancesWithPageOnB('replay-push:');

      // The page on B takes pushes only: it ignores catch_up, so a message reaches it live or never.
      const page = pageOn(socket, ringId, 0, false);

      await outageWithABackFirst(own, relayToB, a, b);
      const quiet = await owner.send('envoyé pendant que B se reconnecte');
      expect(quiet.statusCode).toBe(200);
      const quietSeq = quiet.json().message.seq as number;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(page.seqs.has(quietSeq)).toBe(false);

      relayToB.open();
      await until(() => b.ctx.realtime.isShared, 10_000, 'instance B back on Redis');
      await until(() => page.seqs.has(quietSeq), 5000, 'the quiet message pushed to the page on B');
      expect([...page.seqs].filter((seq) => seq === quietSeq)).toHaveLength(1);
    }, 60_000);
  },
);
