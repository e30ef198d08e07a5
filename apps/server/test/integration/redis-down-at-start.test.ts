import type { TNewMessageEvent } from '@securering/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { canStartRedis, startOwnRedis, type OwnRedis } from '../redis-server';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

/** Resolves when `condition` holds (polled), rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(canStartRedis)('instances started while Redis is down (a Redis of the test’s own)', () => {
  let redis: OwnRedis | undefined;
  const apps: TestApp[] = [];
  const sockets: TestSocket[] = [];
  const unhandled: unknown[] = [];
  const recordUnhandled = (error: unknown) => unhandled.push(error);

  afterAll(async () => {
    process.off('unhandledRejection', recordUnhandled);
    for (const socket of sockets) socket.close();
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    await redis?.stop();
  });

  it('subscribe once Redis comes up: a message sent on one instance is pushed live to a page on the other', async () => {
    process.on('unhandledRejection', recordUnhandled);
    // A port where Redis will run, but nothing answers yet when both instances start.
    redis = await startOwnRedis();
    await redis.kill();
    const redisKeyPrefix = 'down-at-start:';
    const a = await buildTestApp({ redisUrl: redis.url, redisKeyPrefix });
    apps.push(a);
    const b = await buildTestApp({ database: a.database, redisUrl: redis.url, redisKeyPrefix });
    apps.push(b);
    const urlB = await listen(b.app);
    // Long enough for the adapters' first SUBSCRIBE commands to fail (one retry, then given up).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(a.ctx.realtime.isShared).toBe(false);
    expect(b.ctx.realtime.isShared).toBe(false);

    await redis.start();
    await until(() => a.ctx.realtime.isShared && b.ctx.realtime.isShared, 10_000, 'both instances on Redis');

    const { owner, members } = await ringWithMembers(a, 1);
    await members[0]!.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    // The member's page is on instance B and takes pushes only (it does not answer catch_up).
    const { socket } = await joinedSocket(b, urlB, members[0]!);
    sockets.push(socket);
    const pushed = new Set<number>();
    socket.on('new_message', (event: TNewMessageEvent) => pushed.add(event.seq));

    const sent = await owner.send('Redis est revenu après le démarrage');
    expect(sent.statusCode).toBe(200);
    const seq = sent.json().message.seq as number;
    await until(() => pushed.has(seq), 5000, 'the push from instance A reached the page on instance B');
    expect(unhandled).toEqual([]);
  }, 60_000);
});
