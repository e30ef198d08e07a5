import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CHAT_API_PATHS, MESSAGES, type TRealtimeMode } from '@securering/contract';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { buildTestApp, type TestApp } from '../build-test-app';
import { E2eeMember } from '../e2ee-member';
import { bearer, buildCustomer, buildRingMember, ringToken } from '../factories';
import { canStartRedis, startOwnRedis, type OwnRedis } from '../redis-server';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';
import { TEST_DB_KIND, type TestDatabase } from '../test-database';

/** A call that cannot be served because a dependency is down must answer within this time. */
const ANSWER_WITHIN_MS = 5000;

/** Resolves when `condition` holds (polled), rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs a call and measures how long its answer took. */
async function timed(
  call: () => Promise<LightMyRequestResponse>,
): Promise<{ res: LightMyRequestResponse; ms: number }> {
  const started = Date.now();
  const res = await call();
  return { res, ms: Date.now() - started };
}

/** A 503 that says what happens, in French, and when to try again. */
function expectClearUnavailable(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(503);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.json()).toEqual({ success: false, error: MESSAGES.serviceUnavailable });
  expect(MESSAGES.serviceUnavailable).toBe(
    'Service momentanément indisponible, nouvel essai dans quelques secondes',
  );
}

/** Errors no one handled while the test ran (an instance would have died of the first one). */
const unhandled: unknown[] = [];
const recordUnhandled = (error: unknown) => unhandled.push(error);

describe.runIf(canStartRedis)(
  'Redis outage with two instances: nobody dies, everything answers, nothing is lost',
  () => {
    let redis: OwnRedis;
    let a: TestApp;
    let b: TestApp;
    let urlA: string;
    let urlB: string;
    const sockets: TestSocket[] = [];

    beforeAll(async () => {
      process.on('unhandledRejection', recordUnhandled);
      process.on('uncaughtException', recordUnhandled);
      redis = await startOwnRedis();
      const redisKeyPrefix = `outage-${randomBytes(4).toString('hex')}:`;
      a = await buildTestApp({ redisUrl: redis.url, redisKeyPrefix });
      b = await buildTestApp({ database: a.database, redisUrl: redis.url, redisKeyPrefix });
      urlA = await listen(a.app);
      urlB = await listen(b.app);
    });
    afterAll(async () => {
      process.off('unhandledRejection', recordUnhandled);
      process.off('uncaughtException', recordUnhandled);
      for (const socket of sockets) socket.close();
      await b?.close().catch(() => undefined);
      await a?.close();
      await redis?.stop();
    });

    it('keeps both instances serving logins, sends and logouts within 5 s, reports degraded readiness, has pages poll, and delivers every acknowledged message once Redis is back', async () => {
      const { ringId, owner, members } = await ringWithMembers(a, 2);
      for (const member of members) await member.publish();
      expect((await owner.rotate()).statusCode).toBe(200);
      const [reader, writer] = members as [E2eeMember, E2eeMember];
      await writer.loadKeys();
      const sendThroughB = async (text: string) =>
        b.app.inject({
          method: 'POST',
          url: CHAT_API_PATHS.send,
          headers: writer.headers,
          payload: {
            content: await writer.encrypt('room:general', text),
            clientEncrypted: true,
            conversation_id: 'room:general',
            messageType: 'text',
          },
        });

      // A page on instance B; a message sent through A reaches it through Redis.
      const page = await joinedSocket(b, urlB, reader);
      sockets.push(page.socket);
      const modes = () =>
        page.events.filter((e) => e.name === 'realtime_mode').map((e) => (e.payload as TRealtimeMode).mode);
      const pushed = () => page.events.filter((e) => e.name === 'new_message').length;
      expect((await owner.send('avant la panne')).statusCode).toBe(200);
      await until(() => pushed() === 1, 5000, 'push through Redis before the outage');

      // A member who will log out through B while its page is open on A.
      const leaverRow = await buildRingMember(a.ctx, ringId);
      const leaver = new E2eeMember(a.app, leaverRow.id, ringId, await ringToken(a.ctx, leaverRow.id));
      const leaverPage = await joinedSocket(a, urlA, leaver);
      sockets.push(leaverPage.socket);
      const leaverClosed = new Promise<void>((resolve) =>
        leaverPage.socket.once('disconnect', () => resolve()),
      );
      // People who will sign in during the outage.
      const customer = await buildCustomer(a.ctx);
      const loginRows = await Promise.all([buildRingMember(a.ctx, ringId), buildRingMember(a.ctx, ringId)]);

      await redis.kill();
      await until(
        () => a.ctx.redis!.status !== 'ready' && b.ctx.redis!.status !== 'ready',
        5000,
        'both instances noticed',
      );
      // The page on B is told that pushes from the other instances stopped: it polls meanwhile.
      await until(() => modes().includes('polling'), 5000, 'page told to poll');

      // Logins, sends and logouts on both instances, all at once.
      const acknowledged: string[] = ['avant la panne'];
      const calls: Array<{ what: string; call: () => Promise<LightMyRequestResponse>; text?: string }> = [
        ...[1, 2, 3].map((i) => ({ what: `send A ${i}`, text: `A ${i}`, call: () => owner.send(`A ${i}`) })),
        ...[1, 2, 3].map((i) => ({
          what: `send B ${i}`,
          text: `B ${i}`,
          call: () => sendThroughB(`B ${i}`),
        })),
        ...loginRows.map((row, i) => ({
          what: `ring login ${i}`,
          call: () =>
            (i === 0 ? a : b).app.inject({
              method: 'POST',
              url: '/api/rings/login.php',
              payload: { invite_code: row.invite_code, password: row.password },
            }),
        })),
        {
          what: 'customer login',
          call: () =>
            b.app.inject({
              method: 'POST',
              url: '/api/auth/customer-login.php',
              payload: { email: customer.email, password: customer.password },
            }),
        },
        {
          what: 'ring logout',
          call: () =>
            b.app.inject({
              method: 'POST',
              url: '/api/rings/logout.php',
              headers: bearer(leaver.token),
              payload: {},
            }),
        },
      ];
      const results = await Promise.all(calls.map(async (c) => ({ ...c, ...(await timed(c.call)) })));
      for (const { what, res, ms, text } of results) {
        expect(ms, `${what} answered in ${ms} ms`).toBeLessThan(ANSWER_WITHIN_MS);
        if (res.statusCode === 503) expectClearUnavailable(res);
        else {
          expect(res.statusCode, `${what}: ${res.body}`).toBe(200);
          if (text) acknowledged.push(text);
        }
      }
      // Nothing here needs Redis to be served: the database holds sessions, tokens and messages.
      expect(results.filter((r) => r.res.statusCode !== 200).map((r) => r.what)).toEqual([]);

      // Readiness: Redis is shared by every instance, so each reports itself degraded but stays in.
      for (const app of [a, b]) {
        const ready = await app.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(200);
        expect(ready.json()).toMatchObject({
          status: 'degraded',
          degraded: ['redis'],
          checks: { database: 'ok' },
        });
      }

      // The page on B polls (join_ring's catch-up) and gets the messages sent through A meanwhile.
      const polled = await page.socket.emitWithAck('join_ring', {
        ringId,
        catchUp: [{ conversationId: 'room:general', since: 1 }],
      });
      expect(polled.ok).toBe(true);
      const missed = polled.ok ? (polled.missed ?? []).flatMap((m) => m.messages) : [];
      expect(missed.length).toBe(acknowledged.length - 1);

      // The logged-out page on A is closed although the order could not travel through Redis.
      await leaverClosed;

      // Still alive well past the 6 s after which an instance used to die of the adapter's publish.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      for (const app of [a, b])
        expect((await app.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(unhandled).toEqual([]);

      // Redis comes back: readiness ok, live pushes again, and every acknowledged message stored
      // once, in order.
      await redis.start();
      await until(
        () => a.ctx.redis!.status === 'ready' && b.ctx.redis!.status === 'ready',
        10_000,
        'both instances reconnected',
      );
      await until(() => modes().at(-1) === 'live', 10_000, 'page told pushes are live again');
      for (const app of [a, b])
        expect((await app.app.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({
          status: 'ok',
        });
      const before = pushed();
      const catchUpsBefore = page.events.filter((e) => e.name === 'catch_up').length;
      expect((await owner.send('après la panne')).statusCode).toBe(200);
      acknowledged.push('après la panne');
      // Pushed live, or — when it was published before the other instance's subscription came back —
      // announced by the catch_up signal that follows the resubscription (the page then reads from
      // its last seq, as the history read below does).
      await until(
        () => pushed() > before || page.events.filter((e) => e.name === 'catch_up').length > catchUpsBefore,
        10_000,
        'push or catch-up signal through Redis after the outage',
      );

      const history = await reader.call(
        'GET',
        '/api/messages/get.php?conversation_id=room%3Ageneral&limit=50',
      );
      expect(history.statusCode).toBe(200);
      const stored = history.json().messages as Array<{ seq: number; content: string }>;
      expect(stored.map((m) => m.seq)).toEqual(stored.map((_, i) => i + 1));
      await reader.loadKeys();
      const texts = await Promise.all(stored.map((m) => reader.decrypt(m.content)));
      expect([...texts].sort()).toEqual([...acknowledged].sort());
      expect(unhandled).toEqual([]);
    });
  },
);

/**
 * A TCP relay in front of PostgreSQL that the test can cut (every connection dropped, new ones
 * refused) and restore: "stopping PostgreSQL" for this app only, never the shared server.
 */
async function postgresRelay(target: { host: string; port: number }) {
  let cut = false;
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    cut() {
      cut = true;
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    restore() {
      cut = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.runIf(TEST_DB_KIND === 'postgres')(
  'PostgreSQL outage: clear 503s, then recovery without restart',
  () => {
    let relay: Awaited<ReturnType<typeof postgresRelay>>;
    let t: TestApp;
    let database: TestDatabase;
    const schema = `t_outage_${randomBytes(5).toString('hex')}`;
    const direct = process.env.TEST_DATABASE_URL ?? '';

    beforeAll(async () => {
      unhandled.length = 0;
      process.on('unhandledRejection', recordUnhandled);
      process.on('uncaughtException', recordUnhandled);
      const url = new URL(direct);
      relay = await postgresRelay({ host: url.hostname, port: Number(url.port || 5432) });
      const relayed = new URL(direct);
      relayed.hostname = '127.0.0.1';
      relayed.port = String(relay.port);
      const admin = new pg.Client({ connectionString: direct });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
      const migrator = openDatabase({ databaseUrl: direct, pgSchema: schema, pgPoolSize: 1 });
      await migrateToLatest(migrator.db);
      await migrator.close();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-outage-'));
      const open = () => openDatabase({ databaseUrl: relayed.toString(), pgSchema: schema, pgPoolSize: 4 });
      database = {
        open,
        handle: open(),
        dataDir,
        async drop() {
          const client = new pg.Client({ connectionString: direct });
          await client.connect();
          await client.query(`drop schema if exists ${schema} cascade`);
          await client.end();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
      t = await buildTestApp({ database, redis: false });
    });
    afterEach(() => relay?.restore());
    afterAll(async () => {
      process.off('unhandledRejection', recordUnhandled);
      process.off('uncaughtException', recordUnhandled);
      await t?.close();
      await database?.handle.close();
      await database?.drop();
      await relay?.close();
    });

    it('answers every call 503 with Retry-After and the French message within 5 s while the database is gone, fails readiness, and serves again once it is back', async () => {
      const { owner } = await ringWithMembers(t, 0);
      expect((await owner.rotate()).statusCode).toBe(200);
      const customer = await buildCustomer(t.ctx);
      const calls: Array<{ what: string; call: () => Promise<LightMyRequestResponse> }> = [
        {
          what: 'history',
          call: () => owner.call('GET', '/api/messages/get.php?conversation_id=room%3Ageneral&limit=50'),
        },
        { what: 'ring info', call: () => owner.call('GET', '/api/rings/info.php') },
        {
          what: 'customer login',
          call: () =>
            t.app.inject({
              method: 'POST',
              url: '/api/auth/customer-login.php',
              payload: { email: customer.email, password: customer.password },
            }),
        },
      ];
      for (const { what, call } of calls) expect((await call()).statusCode, what).toBe(200);

      relay.cut();
      for (const { what, call } of calls) {
        const { res, ms } = await timed(call);
        expect(ms, `${what} answered in ${ms} ms`).toBeLessThan(ANSWER_WITHIN_MS);
        expectClearUnavailable(res);
      }
      const sent = await timed(() => owner.send('pendant la panne'));
      expect(sent.ms).toBeLessThan(ANSWER_WITHIN_MS);
      expectClearUnavailable(sent.res);
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'error', failed: ['database'] });
      // Alive: a restart would not bring the database back.
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

      relay.restore();
      for (const { what, call } of calls) {
        const res = await call();
        expect(res.statusCode, `${what} after: ${res.body}`).toBe(200);
      }
      expect((await owner.send('après la panne')).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      // A connection lost while a request held it is that request's error, not the process's.
      expect(unhandled).toEqual([]);
    });
  },
);
