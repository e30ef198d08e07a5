import net from 'node:net';
import type { TJoinRingAck, TMessage, TNewMessageEvent } from '@securering/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { canStartRedis, startOwnRedis, type OwnRedis } from '../redis-server';
import { listen, type TestSocket } from '../socket-client';

/** Resolves when `condition` holds (polled), rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A TCP relay to Redis for one instance, which the test can hold shut: that instance then comes
 * back to Redis later than the other one, as happens when their reconnection timers differ.
 */
async function redisRelay(port: number): Promise<{ url: string; shut(): void; open(): void; close(): void }> {
  let shut = false;
  const links = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (shut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
    links.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      links.delete(client);
      links.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayPort = (server.address() as net.AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${relayPort}`,
    shut() {
      shut = true;
      for (const link of links) link.destroy();
    },
    open() {
      shut = false;
    },
    close() {
      shut = true;
      for (const link of links) link.destroy();
      server.close();
    },
  };
}

/**
 * What a Ring page does with its socket (apps/web/src/lib/realtime.ts): it keeps the highest
 * sequence number of the room, takes pushes, and on `catch_up` joins again naming that number,
 * applying what the answer says it missed.
 */
function pageOn(socket: TestSocket, ringId: string, since: number) {
  const seqs = new Set<number>();
  let last = since;
  const take = (seq: number) => {
    seqs.add(seq);
    last = Math.max(last, seq);
  };
  socket.on('new_message', (event: TNewMessageEvent) => take(event.seq));
  socket.on('catch_up', () => {
    void socket
      .emitWithAck('join_ring', { ringId, catchUp: [{ conversationId: 'room:general', since: last }] })
      .then((ack: TJoinRingAck) => {
        if (ack.ok)
          for (const m of ack.missed ?? []) for (const message of m.messages as TMessage[]) take(message.seq);
      });
  });
  return { seqs };
}

describe.skipIf(!canStartRedis)(
  'no lost push after Redis returns (two instances, a Redis of the test’s own)',
  () => {
    let redis: OwnRedis | undefined;
    let relay: Awaited<ReturnType<typeof redisRelay>> | undefined;
    const apps: TestApp[] = [];
    const sockets: TestSocket[] = [];

    afterAll(async () => {
      for (const socket of sockets) socket.close();
      relay?.open();
      await redis?.start().catch(() => undefined);
      for (const app of apps.reverse()) await app.close().catch(() => undefined);
      relay?.close();
      await redis?.stop();
    });

    it('a message sent while the other instance is not yet listening again reaches its page with no further message', async () => {
      redis = await startOwnRedis();
      relay = await redisRelay(redis.port);
      const a = await buildTestApp({ redisUrl: redis.url, redisKeyPrefix: 'lost-push:' });
      apps.push(a);
      const b = await buildTestApp({
        database: a.database,
        redisUrl: relay.url,
        redisKeyPrefix: 'lost-push:',
      });
      apps.push(b);
      await until(() => a.ctx.realtime.isShared && b.ctx.realtime.isShared, 5000, 'both instances on Redis');
      const urlB = await listen(b.app);
      const { owner, members, ringId } = await ringWithMembers(a, 1);
      await members[0]!.publish();
      expect((await owner.rotate()).statusCode).toBe(200);

      // The member's page is on instance B; the owner sends through instance A.
      const { socket } = await joinedSocket(b, urlB, members[0]!);
      sockets.push(socket);
      const page = pageOn(socket, ringId, 0);
      const first = await owner.send('avant la panne');
      expect(first.statusCode).toBe(200);
      const firstSeq = first.json().message.seq as number;
      await until(() => page.seqs.has(firstSeq), 5000, 'a push across instances before the outage');

      // Redis dies; it comes back, and A is back on it first, while B is not listening yet.
      relay.shut();
      await redis.kill();
      await until(
        () => !a.ctx.realtime.isShared && !b.ctx.realtime.isShared,
        5000,
        'both instances see the outage',
      );
      await redis.start();
      await until(() => a.ctx.realtime.isShared, 10_000, 'instance A back on Redis');
      const quiet = await owner.send('juste après le retour de Redis');
      expect(quiet.statusCode).toBe(200);
      const quietSeq = quiet.json().message.seq as number;

      // B comes back; nobody sends anything more, yet the page gets the message within seconds.
      relay.open();
      await until(() => b.ctx.realtime.isShared, 10_000, 'instance B back on Redis');
      await until(() => page.seqs.has(quietSeq), 10_000, 'the page on B caught up with the quiet message');
    }, 60_000);
  },
);
