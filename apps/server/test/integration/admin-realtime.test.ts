import { MESSAGES, REALTIME_MESSAGES, ZRealtimeStatusResponse } from '@securering/contract';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  ringToken,
} from '../factories';
import { connectSocket, listen, type TestSocket } from '../socket-client';

const STATUS = '/api/admin/realtime-status.php';
const RESTART = '/api/admin/realtime-restart.php';
const nowSec = () => Math.floor(Date.now() / 1000);
const stamp = (offsetSec = 0) => ({ 'x-timestamp': String(nowSec() + offsetSec) });

describe('realtime service status and restart', () => {
  let t: TestApp;
  let baseUrl: string;
  let superHeaders: Record<string, string>;
  let siteEditHeaders: Record<string, string>;
  let siteViewHeaders: Record<string, string>;
  let plansHeaders: Record<string, string>;
  let superId: string;
  let ringA: string;
  let ringB: string;
  let memberA1: string;
  let memberA2: string;
  let memberB: string;
  const sockets: TestSocket[] = [];

  async function streamToken(memberId: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rings/mint-stream-token.php',
      headers: bearer(await ringToken(t.ctx, memberId)),
    });
    expect(res.statusCode).toBe(200);
    return res.json().stream_token as string;
  }
  async function joined(memberId: string, ringId: string | null, url = baseUrl): Promise<TestSocket> {
    const socket = await connectSocket(url, await streamToken(memberId));
    sockets.push(socket);
    if (ringId) expect(await socket.emitWithAck('join_ring', { ringId })).toEqual({ ok: true, ringId });
    return socket;
  }
  const status = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: STATUS, headers });
  const restart = (
    headers: Record<string, string>,
    body: unknown = { reason: 'Maintenance', at: new Date().toISOString() },
  ) => t.app.inject({ method: 'POST', url: RESTART, headers, payload: body as Record<string, unknown> });

  beforeAll(async () => {
    t = await buildTestApp();
    baseUrl = await listen(t.app);
    const root = await t.ctx.admins.findByUsername('root');
    superId = root!.id;
    superHeaders = bearer(await adminToken(t.ctx, superId));
    const edit = await buildAdmin(t.ctx, {
      permissions: [
        ['site_settings', 'view'],
        ['site_settings', 'edit'],
      ],
    });
    siteEditHeaders = bearer(await adminToken(t.ctx, edit.id));
    const view = await buildAdmin(t.ctx, { permissions: [['site_settings', 'view']] });
    siteViewHeaders = bearer(await adminToken(t.ctx, view.id));
    const plans = await buildAdmin(t.ctx, {
      permissions: [
        ['plans', 'view'],
        ['plans', 'edit'],
      ],
    });
    plansHeaders = bearer(await adminToken(t.ctx, plans.id));
    const customer = await buildCustomer(t.ctx);
    ringA = (await buildRing(t.ctx, customer.id)).id;
    ringB = (await buildRing(t.ctx, customer.id)).id;
    memberA1 = (await buildRingMember(t.ctx, ringA)).id;
    memberA2 = (await buildRingMember(t.ctx, ringA)).id;
    memberB = (await buildRingMember(t.ctx, ringB)).id;
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await t.close();
  });

  it('status needs an admin with the site settings view right', async () => {
    expect((await status(stamp())).statusCode).toBe(401);
    const other = await status({ ...plansHeaders, ...stamp() });
    expect(other.statusCode).toBe(403);
    expect(other.json()).toEqual({ success: false, error: MESSAGES.forbidden });
    expect((await status({ ...siteViewHeaders, ...stamp() })).statusCode).toBe(200);
  });

  it('both calls need a fresh X-Timestamp (±5 minutes)', async () => {
    for (const headers of [
      {},
      stamp(-330),
      stamp(330),
      { 'x-timestamp': 'demain' },
      { 'x-timestamp': String(Date.now()) },
    ]) {
      const res = await status({ ...siteViewHeaders, ...headers });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: REALTIME_MESSAGES.invalidTimestamp });
      const r = await restart({ ...superHeaders, ...headers });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toEqual({ success: false, error: REALTIME_MESSAGES.invalidTimestamp });
    }
    expect((await status({ ...siteViewHeaders, ...stamp(-290) })).statusCode).toBe(200);
    expect((await status({ ...siteViewHeaders, ...stamp(290) })).statusCode).toBe(200);
  });

  it('reports settings, process and the sockets and Ring rooms it serves', async () => {
    const before = Date.now();
    const res = await status({ ...siteViewHeaders, ...stamp() });
    const s = ZRealtimeStatusResponse.parse(res.json());
    expect(s).toMatchObject({
      heartbeat_ms: 20_000,
      grace_ms: 3_000,
      pid: process.pid,
      sockets: 0,
      ringRoomsCount: 0,
    });
    expect(s.uptime_sec).toBeGreaterThanOrEqual(0);
    expect(s.last_config_fetch_ms).toBeGreaterThanOrEqual(before);

    await joined(memberA1, ringA);
    await joined(memberA2, ringA);
    await joined(memberB, ringB);
    await joined(memberB, null); // connected, not joined to its Ring's room
    await t.ctx.settings.save('realtime', { heartbeat_sec: '30', grace_sec: '5' });
    const after = ZRealtimeStatusResponse.parse((await status({ ...siteViewHeaders, ...stamp() })).json());
    expect(after).toMatchObject({ sockets: 4, ringRoomsCount: 2, heartbeat_ms: 30_000, grace_ms: 5_000 });
  });

  it('restart is for super admins only, even with the site settings edit right', async () => {
    for (const headers of [siteEditHeaders, plansHeaders]) {
      const res = await restart({ ...headers, ...stamp() });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ success: false, error: REALTIME_MESSAGES.superAdminOnly });
    }
    expect((await restart(stamp())).statusCode).toBe(401);
    const s = ZRealtimeStatusResponse.parse((await status({ ...superHeaders, ...stamp() })).json());
    expect(s.sockets).toBe(4);
  });

  it('restart closes every socket, applies the heartbeat, resets uptime; a new stream token reconnects', async () => {
    const socket = sockets[0]!;
    const reasons: string[] = [];
    socket.on('disconnect', (reason) => reasons.push(reason));
    const before = Date.now();

    const res = await restart(
      { ...superHeaders, ...stamp() },
      { reason: 'Nouveaux réglages', at: new Date().toISOString() },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: REALTIME_MESSAGES.restartRequested });

    await expect.poll(() => sockets.every((s) => !s.connected)).toBe(true);
    // A transport close, which socket.io clients retry by themselves (a server "disconnect" they would not).
    expect(reasons).toEqual(['transport close']);
    expect(t.app.realtimeServer.io.engine.opts.pingInterval).toBe(30_000);

    const s = ZRealtimeStatusResponse.parse((await status({ ...superHeaders, ...stamp() })).json());
    expect(s.sockets).toBe(0);
    expect(s.ringRoomsCount).toBe(0);
    expect(s.uptime_sec).toBeLessThanOrEqual(1);
    expect(s.last_config_fetch_ms).toBeGreaterThanOrEqual(before);

    await joined(memberA1, ringA);
    const again = ZRealtimeStatusResponse.parse((await status({ ...superHeaders, ...stamp() })).json());
    expect(again).toMatchObject({ sockets: 1, ringRoomsCount: 1 });

    const audit = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', 'Redémarrage du service temps réel demandé')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ category: 'admin', user_id: superId });
    expect(JSON.parse(audit[0]!.details!)).toMatchObject({ reason: 'Nouveaux réglages', sockets_closed: 4 });
  });

  it('a client like the web one reconnects by itself with a fresh stream token', async () => {
    const tokens: string[] = [];
    const client = io(baseUrl, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnectionDelay: 50,
      reconnectionDelayMax: 100,
      auth: (callback) => {
        streamToken(memberA2).then(
          (token) => {
            tokens.push(token);
            callback({ token });
          },
          () => callback({}),
        );
      },
    });
    try {
      let connects = 0;
      client.on('connect', () => {
        connects += 1;
      });
      await expect.poll(() => connects).toBe(1);
      expect((await restart({ ...superHeaders, ...stamp() })).statusCode).toBe(200);
      await expect.poll(() => connects, { timeout: 5000 }).toBe(2);
      expect(tokens).toHaveLength(2);
      expect(tokens[0]).not.toBe(tokens[1]);
    } finally {
      client.close();
    }
  });

  it('refuses an over-long reason', async () => {
    const res = await restart({ ...superHeaders, ...stamp() }, { reason: 'x'.repeat(501) });
    expect(res.statusCode).toBe(400);
    expect(res.json().success).toBe(false);
  });

  it.runIf(Boolean(process.env.TEST_REDIS_URL))(
    'counts and restarts the sockets of every instance (Redis adapter)',
    async () => {
      const second = await buildTestApp({
        database: t.database,
        redisKeyPrefix: t.ctx.config.redisKeyPrefix,
      });
      try {
        const secondUrl = await listen(second.app);
        // Start from a clean slate on the first instance.
        for (const s of sockets) s.close();
        await expect
          .poll(
            async () =>
              ZRealtimeStatusResponse.parse((await status({ ...superHeaders, ...stamp() })).json()).sockets,
          )
          .toBe(0);

        const remote = await joined(memberB, ringB, secondUrl);
        await joined(memberA1, ringA);
        const s = ZRealtimeStatusResponse.parse((await status({ ...superHeaders, ...stamp() })).json());
        expect(s).toMatchObject({ sockets: 2, ringRoomsCount: 2 });

        expect((await restart({ ...superHeaders, ...stamp() })).statusCode).toBe(200);
        await expect.poll(() => remote.connected, { timeout: 5000 }).toBe(false);
        await expect
          .poll(() => second.app.realtimeServer.io.engine.opts.pingInterval, { timeout: 5000 })
          .toBe(30_000);
      } finally {
        await second.app.close();
      }
    },
  );
});
