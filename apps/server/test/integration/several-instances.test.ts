import fs from 'node:fs';
import path from 'node:path';
import { MESSAGES, ZPlansResponse, type TNewMessageEvent } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { bufferedBytes } from '../../src/realtime/backpressure';
import { sweepDeadInstances } from '../../src/realtime/presence';
import { REQUEST_KEYS_PER_MINUTE } from '../../src/modules/ring-keys/ring-keys.socket';
import { buildTestApp, testConfig, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin, seededPlanId } from '../factories';
import { joinedSocket, presenceUpdatesIn, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';
import { createTestDatabase, type TestDatabase } from '../test-database';

const withRedis = Boolean(process.env.TEST_REDIS_URL);

/** Resolves when `condition` holds (polled), rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('several instances: readiness, draining, backpressure, presence of dead instances, shared limits and caches', () => {
  let t: TestApp;
  let baseUrl: string;
  const sockets: TestSocket[] = [];
  const apps: TestApp[] = [];
  /** Databases made here for an app that does not own them: dropped once the apps are closed. */
  const databases: TestDatabase[] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    for (const app of apps) await app.close().catch(() => undefined);
    for (const database of databases) {
      await database.handle.close();
      await database.drop();
    }
    await t.close();
  });

  it('answers /healthz while alive; /readyz checks each dependency, names the one that fails (degraded only for Redis), and fails while draining', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ok',
      checks: { database: 'ok', storage: 'ok', ...(withRedis ? { redis: 'ok' } : {}) },
    });

    const ping = vi.spyOn(t.ctx.database, 'ping').mockRejectedValueOnce(new Error('connection refused'));
    const noDatabase = await t.app.inject({ method: 'GET', url: '/readyz' });
    ping.mockRestore();
    expect(noDatabase.statusCode).toBe(503);
    expect(noDatabase.json()).toMatchObject({ status: 'error', failed: ['database'] });
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    // Ring files cannot be written: DATA_DIR/ring-files is a file.
    const database = await createTestDatabase();
    databases.push(database);
    fs.writeFileSync(path.join(database.dataDir, 'ring-files'), 'not a folder');
    const broken = await buildTestApp({ database, redis: false });
    apps.push(broken);
    const noStorage = await broken.app.inject({ method: 'GET', url: '/readyz' });
    expect(noStorage.statusCode).toBe(503);
    expect(noStorage.json()).toMatchObject({ status: 'error', failed: ['storage'] });

    if (withRedis) {
      // An instance whose Redis link is gone (on a prefix of its own, so no other instance waits on it).
      const lost = await buildTestApp({ database: t.database });
      lost.ctx.redis!.disconnect();
      const noRedis = await lost.app.inject({ method: 'GET', url: '/readyz' });
      await lost.close();
      // Redis is shared by every instance: its outage is reported, not a reason to take this one out.
      expect(noRedis.statusCode).toBe(200);
      expect(noRedis.json()).toMatchObject({ status: 'degraded', degraded: ['redis'] });
    }

    broken.ctx.lifecycle.startDraining();
    const draining = await broken.app.inject({ method: 'GET', url: '/readyz' });
    expect(draining.statusCode).toBe(503);
    expect(draining.json()).toEqual({ status: 'draining', failed: [] });
  });

  it('closes the transport of every socket when it stops, so clients reconnect by themselves', async () => {
    const leaving = await buildTestApp({ database: t.database, redisKeyPrefix: t.ctx.config.redisKeyPrefix });
    const url = await listen(leaving.app);
    const { members } = await ringWithMembers(leaving, 1);
    const { socket } = await joinedSocket(leaving, url, members[0]!);
    sockets.push(socket);
    const reason = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    leaving.ctx.lifecycle.startDraining();
    await leaving.close();
    // A server "disconnect" ('io server disconnect') is never retried by socket.io clients.
    expect(await reason).toBe('transport close');
  });

  it('cuts off a client that stops reading once its buffer passes the limit, never holding much more; others get everything; it then catches up by sequence number', async () => {
    const LIMIT = 256 * 1024;
    const slow = await buildTestApp({
      database: t.database,
      redisKeyPrefix: t.ctx.config.redisKeyPrefix,
      config: { cluster: { ...testConfig().cluster, socketBufferLimitBytes: LIMIT } },
    });
    apps.push(slow);
    const url = await listen(slow.app);
    const { owner, members } = await ringWithMembers(slow, 2);
    const [steady, stalled] = members as [(typeof members)[0], (typeof members)[0]];
    // Both publish keys and are admitted: only admitted members are served the Ring's messages.
    for (const member of members) await member.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    expect((await owner.send('avant')).statusCode).toBe(200);
    const healthy = await joinedSocket(slow, url, steady);
    const stuck = await joinedSocket(slow, url, stalled);
    sockets.push(healthy.socket, stuck.socket);
    const serverSide = [...slow.app.realtimeServer.io.of('/').sockets.values()].find(
      (s) => s.data.memberId === stalled.memberId,
    )!;
    const stuckClosed = new Promise<string>((resolve) => stuck.socket.once('disconnect', resolve));
    // The stalled client stops reading its TCP socket: the kernel buffers fill, then the server's.
    const transport = stuck.socket.io.engine.transport as unknown as {
      ws: { _socket: { pause(): void; resume(): void } };
    };
    transport.ws._socket.pause();

    const FLOOD = 600;
    const payload = (i: number): TNewMessageEvent => ({
      messageId: `flood-${i}`,
      fromUsername: 'x',
      fromUserId: owner.memberId,
      content: 'A'.repeat(64 * 1024),
      messageType: 'text',
      conversationId: 'room:general',
      ringId: owner.ringId,
      timestamp: new Date().toISOString(),
      seq: 0,
      clientMessageId: `flood-${i}`,
      epoch: 1,
      isEphemeral: false,
      expiresAt: null,
    });
    // Paced by the healthy client, which reads each message before the next is sent (so only the
    // stalled one falls behind).
    let read = 0;
    let wake: (() => void) | undefined;
    healthy.socket.on('new_message', () => {
      read += 1;
      wake?.();
    });
    let held = 0;
    for (let i = 0; i < FLOOD; i++) {
      slow.ctx.realtime.emitToRing(owner.ringId, 'new_message', payload(i));
      if (serverSide.connected)
        held = Math.max(
          held,
          bufferedBytes(serverSide.conn as unknown as Parameters<typeof bufferedBytes>[0]),
        );
      while (read <= i) await new Promise<void>((resolve) => (wake = resolve));
    }
    const floodOf = (events: Array<{ name: string; payload: unknown }>) =>
      events.filter(
        (e) => e.name === 'new_message' && (e.payload as TNewMessageEvent).messageId.startsWith('flood-'),
      ).length;
    expect(floodOf(healthy.events)).toBe(FLOOD);
    expect(healthy.socket.connected).toBe(true);
    // ~38 MB went out; the stalled socket was cut off holding at most the limit plus one message.
    expect(serverSide.disconnected).toBe(true);
    expect(held).toBeLessThanOrEqual(LIMIT + 70 * 1024);

    // Meanwhile the Ring goes on; once the client reads again it sees the cut and catches up.
    expect((await owner.send('pendant 1')).statusCode).toBe(200);
    expect((await owner.send('pendant 2')).statusCode).toBe(200);
    transport.ws._socket.resume();
    expect(['transport close', 'transport error']).toContain(await stuckClosed);
    const page = await stalled.call(
      'GET',
      '/api/messages/get.php?conversation_id=room%3Ageneral&since=1&limit=50',
    );
    expect(page.statusCode).toBe(200);
    const missed = page.json().messages as Array<{ seq: number; content: string }>;
    expect(missed.map((m) => m.seq)).toEqual([2, 3]);
    expect(await owner.decrypt(missed[1]!.content)).toBe('pendant 2');
    const again = await joinedSocket(slow, url, stalled);
    sockets.push(again.socket);
    expect(again.socket.connected).toBe(true);
  });

  it.runIf(withRedis)(
    'announces offline the members of an instance that died (once, by one sweeper), but not those back on another instance',
    async () => {
      const dying = await buildTestApp({ database: t.database, redisKeyPrefix: t.ctx.config.redisKeyPrefix });
      apps.push(dying);
      const dyingUrl = await listen(dying.app);
      const { owner, members } = await ringWithMembers(t, 2);
      const [gone, back] = members as [(typeof members)[0], (typeof members)[0]];
      const watcher = await joinedSocket(t, baseUrl, owner);
      sockets.push(watcher.socket);
      for (const member of [gone, back]) sockets.push((await joinedSocket(t, dyingUrl, member)).socket);
      const statusOf = (memberId: string) =>
        presenceUpdatesIn(watcher.events)
          .filter((u) => u.userId === memberId)
          .map((u) => u.status);
      await until(() => statusOf(gone.memberId).includes('online'), 5000, 'gone online');

      // The instance dies: no heartbeat any more, its entry expired, and its adapter no longer
      // answers the others (as when the process is killed and its Redis connections drop).
      const registry = dying.ctx.realtime.presenceRegistry!;
      await registry.stop({ handOver: true });
      await t.ctx.redis!.del(`${t.ctx.config.redisKeyPrefix}presence:alive:${registry.instanceId}`);
      await dying.app.realtimeServer.io.of('/').adapter.close?.();
      // One of its members is already back, on a live instance.
      sockets.push((await joinedSocket(t, baseUrl, back)).socket);

      const [firstSweep, secondSweep] = await Promise.all([
        sweepDeadInstances(t.ctx),
        sweepDeadInstances(t.ctx),
      ]);
      expect([...firstSweep, ...secondSweep]).toEqual([gone.memberId]);
      await until(() => statusOf(gone.memberId).includes('offline'), 5000, 'gone offline');
      expect(statusOf(back.memberId)).not.toContain('offline');
      expect(await sweepDeadInstances(t.ctx)).toEqual([]);
    },
  );

  it.runIf(withRedis)('counts socket events of one member against one budget on every instance', async () => {
    const clock = new ManualClock('2026-11-24T10:00:30.000Z');
    const first = await buildTestApp({
      database: t.database,
      clock,
      redisKeyPrefix: t.ctx.config.redisKeyPrefix,
    });
    const second = await buildTestApp({
      database: t.database,
      clock,
      redisKeyPrefix: t.ctx.config.redisKeyPrefix,
    });
    apps.push(first, second);
    const [firstUrl, secondUrl] = [await listen(first.app), await listen(second.app)];
    const { members } = await ringWithMembers(first, 1);
    const member = members[0]!;
    await member.publish();
    const here = await joinedSocket(first, firstUrl, member);
    const there = await joinedSocket(second, secondUrl, member);
    sockets.push(here.socket, there.socket);
    const answers: Array<{ ok: boolean; error?: string }> = [];
    for (let i = 0; i < 15; i++)
      for (const socket of [here.socket, there.socket])
        answers.push(await socket.emitWithAck('request_keys', { ringId: member.ringId }));
    const refused = answers.filter((a) => a.error === MESSAGES.tooManyRequests).length;
    expect(refused).toBe(30 - REQUEST_KEYS_PER_MINUTE);
  });

  it.runIf(withRedis)(
    'serves the public plans from a cache that a plan change clears on every instance',
    async () => {
      const other = await buildTestApp({ database: t.database, redisKeyPrefix: t.ctx.config.redisKeyPrefix });
      apps.push(other);
      const publicSlugs = async (app: TestApp) =>
        ZPlansResponse.parse(
          (await app.app.inject({ method: 'GET', url: '/api/subscriptions/plans.php' })).json(),
        ).data.map((p) => p.slug);
      expect(await publicSlugs(other)).toContain('professional');
      const admin = await buildAdmin(t.ctx, { role: 'super_admin' });
      const plan = await seededPlanId(t.ctx, 'professional');
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/admin/plans.php',
        headers: bearer(await adminToken(t.ctx, admin.id)),
        payload: { id: plan, active: false },
      });
      expect(res.statusCode, res.body).toBe(200);
      await expect.poll(() => publicSlugs(other), { timeout: 3000 }).not.toContain('professional');
      expect(await publicSlugs(t)).not.toContain('professional');
    },
  );
});
