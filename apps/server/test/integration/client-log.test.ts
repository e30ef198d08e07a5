import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  customerToken,
  ringToken,
} from '../factories';

describe('client log endpoint', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A fixed clock keeps every counted request in one rate-limit window.
    t = await buildTestApp({ clock: new ManualClock('2026-11-22T10:00:30.000Z') });
  });
  afterAll(() => t.close());

  const post = (payload: unknown, ip = '10.0.0.1', headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/utils/log.php',
      payload: payload as object,
      remoteAddress: ip,
      headers,
    });
  const entry = (message: string) =>
    t.ctx.db.selectFrom('system_logs').selectAll().where('message', '=', message).executeTakeFirstOrThrow();
  const customerHeaders = async () => {
    const customer = await buildCustomer(t.ctx);
    return { customer, headers: bearer(await customerToken(t.ctx, customer.id)) };
  };

  it('stores a signed-in report with its level, category, ip, user agent and session identity', async () => {
    const { customer, headers } = await customerHeaders();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/utils/log.php',
      headers: { 'user-agent': 'TestBrowser/1.0', ...headers },
      remoteAddress: '10.0.0.2',
      payload: {
        level: 'warn',
        category: 'auth',
        message: 'Échec de connexion',
        details: { email: 'a@b.c' },
        user_id: 42,
      },
    });
    expect(res.statusCode).toBe(200);
    const row = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', 'Échec de connexion')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      level: 'warning',
      category: 'auth',
      ip_address: '10.0.0.2',
      user_agent: 'TestBrowser/1.0',
      user_id: customer.id,
    });
    expect(JSON.parse(row.details ?? '{}')).toMatchObject({
      source: 'client',
      audience: 'customer',
      reported_user_id: '42',
      details: { email: 'a@b.c' },
    });
  });

  it('accepts JSON sent as text/plain by navigator.sendBeacon', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/utils/log.php',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify({ level: 'info', category: 'realtime', message: 'beacon report' }),
    });
    expect(res.statusCode).toBe(200);
    const row = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', 'beacon report')
      .executeTakeFirst();
    // Anonymous: filed under client, with the claimed category kept for reading.
    expect(row?.category).toBe('client');
    expect(JSON.parse(row?.details ?? '{}')).toMatchObject({ reported_category: 'realtime' });
  });

  it('normalises unknown categories and clips long messages', async () => {
    const { headers } = await customerHeaders();
    await post({ level: 'error', category: 'weird', message: 'x'.repeat(5000) }, '10.0.0.1', headers);
    const row = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('category', '=', 'system')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(row.message.length).toBe(1000);
    expect(row.level).toBe('error');
  });

  it('files anonymous reports under client at warning at most, whatever they claim (issue 9, item 11)', async () => {
    for (const category of ['admin', 'security', 'payment']) {
      const message = `forged ${category}`;
      const res = await post({ level: 'critical', category, message, user_id: 'some-admin-id' }, '10.0.0.3');
      expect(res.statusCode).toBe(200);
      const row = await entry(message);
      expect(row).toMatchObject({ level: 'warning', category: 'client', user_id: null });
      expect(JSON.parse(row.details ?? '{}')).toMatchObject({
        source: 'client',
        reported_level: 'critical',
        reported_category: category,
        reported_user_id: 'some-admin-id',
      });
    }
    // A dead or unknown bearer is anonymous too.
    await post({ level: 'critical', category: 'admin', message: 'dead bearer' }, '10.0.0.3', bearer('nope'));
    expect(await entry('dead bearer')).toMatchObject({ level: 'warning', category: 'client', user_id: null });
    const critical = await t.ctx.db
      .selectFrom('system_logs')
      .select('id')
      .where('level', '=', 'critical')
      .execute();
    expect(critical).toEqual([]);
  });

  it('identifies Ring members and admins by their session, never by the claimed user_id', async () => {
    const owner = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, owner.id);
    const member = await buildRingMember(t.ctx, ring.id);
    await post(
      { level: 'critical', category: 'security', message: 'member report', user_id: owner.id },
      '10.0.0.4',
      bearer(await ringToken(t.ctx, member.id)),
    );
    const fromMember = await entry('member report');
    expect(fromMember).toMatchObject({ level: 'error', category: 'security', user_id: member.id });
    expect(JSON.parse(fromMember.details ?? '{}')).toMatchObject({
      audience: 'ring',
      reported_user_id: owner.id,
    });

    const admin = await buildAdmin(t.ctx);
    await post(
      { level: 'error', category: 'admin', message: 'admin report' },
      '10.0.0.4',
      bearer(await adminToken(t.ctx, admin.id)),
    );
    expect(await entry('admin report')).toMatchObject({
      level: 'error',
      category: 'admin',
      user_id: admin.id,
    });

    // Only admins file under admin: a customer's claim goes to client.
    const { customer, headers } = await customerHeaders();
    await post({ level: 'error', category: 'admin', message: 'customer claims admin' }, '10.0.0.4', headers);
    expect(await entry('customer claims admin')).toMatchObject({ category: 'client', user_id: customer.id });
  });

  it('refuses invalid and oversized reports without a server error', async () => {
    expect((await post({ level: 'info' })).statusCode).toBe(400);
    const text = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/utils/log.php',
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        payload,
      });
    expect((await text('not json at all')).statusCode).toBe(400);
    const big = await post({ message: 'm', details: 'd'.repeat(20_000) });
    expect(big.statusCode).toBe(413);
  });

  it('limits reports per IP', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 125; i++)
      statuses.push((await post({ message: `flood ${i}` }, '10.9.9.9')).statusCode);
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(120).every((s) => s === 429)).toBe(true);
    expect((await post({ message: 'other ip' }, '10.9.9.10')).statusCode).toBe(200);
  });
});
