import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerMatches } from '../../src/modules/metrics/metrics.routes';
import { buildTestApp, type TestApp } from '../build-test-app';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

const TOKEN = 'metrics-token-for-the-tests-0123456789';
const withRedis = Boolean(process.env.TEST_REDIS_URL);

/** One sample's value in a Prometheus text exposition (0 when the series is absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((label) => present.includes(label))) total += Number(match[3]);
  }
  return total;
}

describe('GET /metrics (issue 30)', () => {
  let t: TestApp;
  let baseUrl: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    t = await buildTestApp({ config: { metricsToken: TOKEN } });
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
  });

  const scrape = async (app = t.app): Promise<string> => {
    const res = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    return res.body;
  };

  it('refuses a call without the token or with another one, and compares the whole token', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong-token',
      `Bearer ${TOKEN}x`,
      TOKEN,
      `Basic ${TOKEN}`,
    ]) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        ...(authorization ? { headers: { authorization } } : {}),
      });
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.json()).toEqual({ success: false, error: 'Jeton de métriques absent ou invalide' });
      expect(res.body).not.toContain('securering_');
    }
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`Bearer ${TOKEN.slice(0, -1)}`, TOKEN)).toBe(false);
  });

  it('does not exist without METRICS_TOKEN', async () => {
    const other = await buildTestApp();
    try {
      const res = await other.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('counts requests by route and status, their latency and the database queries they run', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++)
      expect((await t.app.inject({ method: 'GET', url: '/api/settings.php' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/nope-xyz.php' })).statusCode).toBe(404);
    const after = await scrape();
    const route = { route: '/api/settings.php', method: 'GET', status: '200' };
    expect(
      sample(after, 'securering_http_requests_total', route) -
        sample(before, 'securering_http_requests_total', route),
    ).toBe(3);
    expect(
      sample(after, 'securering_http_request_duration_seconds_count', { route: '/api/settings.php' }) -
        sample(before, 'securering_http_request_duration_seconds_count', { route: '/api/settings.php' }),
    ).toBe(3);
    expect(
      sample(after, 'securering_http_requests_total', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    // The URL itself (which may carry tokens) is never a label.
    expect(after).not.toContain('nope-xyz');
    expect(sample(after, 'securering_db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(
      sample(before, 'securering_db_query_duration_seconds_count', { outcome: 'ok' }),
    );
    expect(after).toContain('securering_nodejs_eventloop_lag_seconds');
    if (t.ctx.database.dialect === 'postgres')
      expect(sample(after, 'securering_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    else expect(after).not.toContain('securering_db_pool_connections{');
  });

  it('follows sockets, joined Rings, deliveries and message pushes as traffic flows', async () => {
    const { owner, members } = await ringWithMembers(t, 1);
    const [member] = members;
    await member!.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    await member!.loadKeys();
    const before = await scrape();
    expect(sample(before, 'securering_connected_sockets')).toBe(0);
    expect(sample(before, 'securering_joined_rings')).toBe(0);

    const ownerSocket = await joinedSocket(t, baseUrl, owner);
    const memberSocket = await joinedSocket(t, baseUrl, member!);
    sockets.push(ownerSocket.socket, memberSocket.socket);
    const joined = await scrape();
    expect(sample(joined, 'securering_connected_sockets')).toBe(2);
    expect(sample(joined, 'securering_joined_rings')).toBe(1);
    // Deliveries are counted once per broadcast by the adapter: no listener runs per socket and per
    // packet (issue 30: each cost a call for every event written to every socket).
    for (const socket of t.app.realtimeServer.io.of('/').sockets.values()) {
      expect(socket.listenersAnyOutgoing()).toEqual([]);
      expect(socket.conn.listenerCount('packetCreate')).toBe(0);
    }

    const sent = await owner.send('bonjour');
    expect(sent.statusCode).toBe(200);
    await expect.poll(() => memberSocket.events.filter((e) => e.name === 'new_message').length).toBe(1);
    const after = await scrape();
    // The message reached both sockets of the room (its sender's and the member's).
    expect(
      sample(after, 'securering_socket_deliveries_total', { event: 'new_message' }) -
        sample(joined, 'securering_socket_deliveries_total', { event: 'new_message' }),
    ).toBe(2);
    expect(sample(after, 'securering_message_push_delay_seconds_count')).toBe(
      sample(before, 'securering_message_push_delay_seconds_count') + 1,
    );

    for (const socket of sockets.splice(0)) socket.close();
    await expect.poll(async () => sample(await scrape(), 'securering_connected_sockets')).toBe(0);
  });

  it.runIf(withRedis)(
    'counts a broadcast on each instance that writes it to its sockets, once per socket there',
    async () => {
      const other = await buildTestApp({
        database: t.database,
        redisKeyPrefix: t.ctx.config.redisKeyPrefix,
        config: { metricsToken: TOKEN },
      });
      try {
        const otherUrl = await listen(other.app);
        const { owner, members } = await ringWithMembers(t, 2);
        for (const member of members) await member.publish();
        expect((await owner.rotate()).statusCode).toBe(200);
        for (const member of members) await member.loadKeys();
        // The sender's socket here; both members' sockets on the other instance.
        const here = await joinedSocket(t, baseUrl, owner);
        const there = await Promise.all(members.map((member) => joinedSocket(other, otherUrl, member)));
        sockets.push(here.socket, ...there.map((joined) => joined.socket));
        const count = (text: string) =>
          sample(text, 'securering_socket_deliveries_total', { event: 'new_message' });
        const [hereBefore, thereBefore] = [count(await scrape()), count(await scrape(other.app))];

        expect((await owner.send('bonjour')).statusCode).toBe(200);
        for (const joined of [here, ...there])
          await expect.poll(() => joined.events.filter((e) => e.name === 'new_message').length).toBe(1);
        // Stored and published here, carried by Redis and written there: each instance counts its own.
        expect(count(await scrape()) - hereBefore).toBe(1);
        expect(count(await scrape(other.app)) - thereBefore).toBe(2);
      } finally {
        for (const socket of sockets.splice(0)) socket.close();
        await other.close();
      }
    },
  );

  it('counts scheduled job runs and mails by outcome', async () => {
    const before = await scrape();
    const job = { name: 'metrics-test-job', intervalMs: 60_000, run: async () => undefined };
    const failing = {
      name: 'metrics-test-failing',
      intervalMs: 60_000,
      run: () => Promise.reject(new Error('boom')),
    };
    await t.app.scheduler.runOnce(job);
    await t.app.scheduler.runOnce(failing);
    // Without SMTP settings the outbox logs the mail (its links printed): outcome "logged".
    await t.ctx.mail.enqueue({ to: 'metrics@example.com', subject: 'Essai', html: '<p>x</p>', text: 'x' });
    await t.ctx.mail.processDue();
    await t.ctx.mail.idle();
    const after = await scrape();
    expect(
      sample(after, 'securering_mails_total', { outcome: 'logged' }) -
        sample(before, 'securering_mails_total', { outcome: 'logged' }),
    ).toBe(1);
    expect(sample(after, 'securering_job_runs_total', { job: 'metrics-test-job', outcome: 'ok' })).toBe(1);
    expect(
      sample(after, 'securering_job_runs_total', { job: 'metrics-test-failing', outcome: 'failed' }),
    ).toBe(1);
    expect(sample(before, 'securering_job_runs_total', { job: 'metrics-test-job' })).toBe(0);
  });
});
