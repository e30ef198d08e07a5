import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { ManualClock } from '../../src/lib/clock';
import { buildTestApp, testConfig, type TestApp } from '../build-test-app';

/**
 * Behind a reverse proxy, the client address is the one the proxy saw — the right-most entry of
 * X-Forwarded-For, which our proxy appends — never the left-most one, which the client writes.
 */
describe('client IP behind a trusted proxy (TRUST_PROXY)', () => {
  // A fixed clock keeps the per-minute counts in one window.
  const clock = new ManualClock('2026-11-22T10:00:30.000Z');
  const perMinute = 3;

  async function appWith(trustProxy: string): Promise<TestApp> {
    return buildTestApp({
      clock,
      config: {
        trustProxy: loadConfig({ TRUST_PROXY: trustProxy }).trustProxy,
        rateLimits: { ...testConfig().rateLimits, publicPerMinute: perMinute },
      },
    });
  }

  /** A failed Ring login for a fresh account (one attempt per account, so only the IP limit counts). */
  function ringLogin(t: TestApp, headers: Record<string, string>, remoteAddress?: string) {
    return t.app.inject({
      method: 'POST',
      url: '/api/rings/login.php',
      headers,
      ...(remoteAddress ? { remoteAddress } : {}),
      payload: { email: `inconnu-${Math.random().toString(36).slice(2)}@example.com`, password: 'Mauvais-1' },
    });
  }

  async function failedLoginIps(t: TestApp): Promise<string[]> {
    const rows = await t.ctx.db
      .selectFrom('system_logs')
      .select('ip_address')
      .where('message', '=', 'Échec de connexion à un Ring')
      .execute();
    return rows.map((r) => r.ip_address ?? '');
  }

  describe('TRUST_PROXY=1 (one proxy in front)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await appWith('1');
    });
    afterAll(() => t.close());

    it('sees the address the proxy added, and rate-limits and audits under it', async () => {
      // The proxy (the socket peer, 127.0.0.1 under inject) appended 10.0.0.9; the client forged the rest.
      const statuses: number[] = [];
      for (const forged of ['6.6.6.6', '7.7.7.7', '8.8.8.8', '9.9.9.9'])
        statuses.push((await ringLogin(t, { 'x-forwarded-for': `${forged}, 10.0.0.9` })).statusCode);
      expect(statuses).toEqual([401, 401, 401, 429]);
      expect(await failedLoginIps(t)).toEqual(['10.0.0.9', '10.0.0.9', '10.0.0.9']);

      // Another client behind the same proxy has its own budget.
      expect((await ringLogin(t, { 'x-forwarded-for': '6.6.6.6, 10.0.0.10' })).statusCode).toBe(401);
    });
  });

  describe('TRUST_PROXY=<proxy addresses>', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await appWith('127.0.0.0/8, 10.1.0.0/16');
    });
    afterAll(() => t.close());

    it('follows the chain through known proxies only, and ignores the header from anyone else', async () => {
      // Through the proxy 127.0.0.1 and an inner proxy 10.1.2.3: the client is 203.0.113.7.
      await ringLogin(t, { 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 10.1.2.3' });
      // Straight from 198.51.100.4, not a proxy: its X-Forwarded-For is not believed.
      await ringLogin(t, { 'x-forwarded-for': '6.6.6.6' }, '198.51.100.4');
      expect((await failedLoginIps(t)).sort()).toEqual(['198.51.100.4', '203.0.113.7']);
    });
  });
});
