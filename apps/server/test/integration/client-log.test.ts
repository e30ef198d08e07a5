import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { buildTestApp, type TestApp } from '../build-test-app';

describe('client log endpoint', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A fixed clock keeps every counted request in one rate-limit window.
    t = await buildTestApp({ clock: new ManualClock('2026-11-22T10:00:30.000Z') });
  });
  afterAll(() => t.close());

  const post = (payload: unknown, ip = '10.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/api/utils/log.php',
      payload: payload as object,
      remoteAddress: ip,
    });

  it('stores a client report with its level, category, ip and user agent', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/utils/log.php',
      headers: { 'user-agent': 'TestBrowser/1.0' },
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
      user_id: null,
    });
    expect(JSON.parse(row.details ?? '{}')).toMatchObject({
      source: 'client',
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
    expect(row?.category).toBe('realtime');
  });

  it('normalises unknown categories and clips long messages', async () => {
    await post({ level: 'error', category: 'weird', message: 'x'.repeat(5000) });
    const row = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('category', '=', 'system')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(row.message.length).toBe(1000);
    expect(row.level).toBe('error');
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
