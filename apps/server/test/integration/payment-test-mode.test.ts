import { SUBSCRIPTION_MESSAGES, ZAdminStatsResponse } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin, buildCustomer, customerToken, seededPlanId } from '../factories';
import { captureLog } from '../log-capture';

describe('local test payment provider: off unless PAYMENT_TEST_MODE=1', () => {
  it('reads PAYMENT_TEST_MODE only, whatever NODE_ENV says, and refuses other values', () => {
    for (const env of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'test' }, { PAYMENT_TEST_MODE: '0' }])
      expect(loadConfig(env).paymentTestMode, JSON.stringify(env)).toBe(false);
    expect(loadConfig({ PAYMENT_TEST_MODE: '1' }).paymentTestMode).toBe(true);
    expect(loadConfig({ PAYMENT_TEST_MODE: '1', NODE_ENV: 'production' }).paymentTestMode).toBe(true);
    expect(() => loadConfig({ PAYMENT_TEST_MODE: 'oui' })).toThrow(/PAYMENT_TEST_MODE/);
  });

  async function dashboardFlag(t: TestApp): Promise<boolean> {
    const admin = await buildAdmin(t.ctx);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/stats.php',
      headers: bearer(await adminToken(t.ctx, admin.id)),
    });
    return ZAdminStatsResponse.parse(res.json()).data.paymentTestMode;
  }

  describe('started without the flag (what `npm start` does)', () => {
    let t: TestApp;
    const log = captureLog();
    beforeAll(async () => {
      t = await buildTestApp({ config: { logLevel: 'info' }, logStream: log.stream });
    });
    afterAll(() => t.close());

    it('lists no test provider, refuses every test checkout call and activates nothing', async () => {
      const providers = await t.app.inject({ method: 'GET', url: '/api/subscriptions/providers.php' });
      expect(providers.json().providers).toEqual({ card: false, paypal: false, crypto: false, test: false });

      const customer = await buildCustomer(t.ctx);
      const headers = bearer(await customerToken(t.ctx, customer.id));
      const planId = await seededPlanId(t.ctx, 'enterprise');
      const calls = [
        t.app.inject({
          method: 'POST',
          url: '/api/subscriptions/create-test-checkout.php',
          headers,
          payload: { plan_id: planId, billing_period: 'yearly', video_option: true },
        }),
        t.app.inject({
          method: 'GET',
          url: '/api/subscriptions/test-checkout.php?session_id=test_abcdefghijklmnopqrstuv',
          headers,
        }),
        t.app.inject({
          method: 'POST',
          url: '/api/subscriptions/test-checkout.php',
          headers,
          payload: { session_id: 'test_abcdefghijklmnopqrstuv', action: 'approve' },
        }),
        t.app.inject({
          method: 'POST',
          url: '/api/subscriptions/finalize-session.php',
          headers,
          payload: { session_id: 'test_abcdefghijklmnopqrstuv' },
        }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json().error).toBe(SUBSCRIPTION_MESSAGES.testProviderUnavailable);
      }
      const rows = await t.ctx.db
        .selectFrom('subscriptions')
        .select('id')
        .where('customer_id', '=', customer.id)
        .execute();
      expect(rows).toHaveLength(0);
      expect(
        await t.ctx.db.selectFrom('payments').select('id').where('customer_id', '=', customer.id).execute(),
      ).toHaveLength(0);
    });

    it('shows no warning', async () => {
      expect(await dashboardFlag(t)).toBe(false);
      expect(log.text()).not.toContain('PAYMENT_TEST_MODE');
    });
  });

  describe('started with PAYMENT_TEST_MODE=1', () => {
    let t: TestApp;
    const log = captureLog();
    beforeAll(async () => {
      t = await buildTestApp({
        config: { logLevel: 'info', paymentTestMode: loadConfig({ PAYMENT_TEST_MODE: '1' }).paymentTestMode },
        logStream: log.stream,
      });
    });
    afterAll(() => t.close());

    it('offers the test provider and warns in the server log and on the back-office dashboard', async () => {
      const providers = await t.app.inject({ method: 'GET', url: '/api/subscriptions/providers.php' });
      expect(providers.json().providers).toMatchObject({ test: true });
      expect(await dashboardFlag(t)).toBe(true);
      const warning = log
        .text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((entry) => entry.msg.includes('PAYMENT_TEST_MODE'));
      expect(warning).toMatchObject({ level: 40 });
      expect(warning!.msg).toContain('sans paiement');
    });
  });
});
