import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobs } from '../../src/jobs';
import { DAY_MS, ManualClock } from '../../src/lib/clock';
import { purgeVisitorSelections } from '../../src/modules/subscriptions/visitor-selection-purge.job';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, buildSubscription, customerToken, seededPlanId } from '../factories';
import { StripeStub } from '../stubs/stripe-stub';
import { parseStripeForm } from '../stubs/stub-server';

describe('subscription hardening (issue 9)', () => {
  let t: TestApp;
  let stripe: StripeStub;
  let planId: string;
  // A fixed clock keeps every counted request in one rate-limit window.
  const clock = new ManualClock('2026-11-22T10:00:30.000Z');

  beforeAll(async () => {
    stripe = await new StripeStub().start();
    t = await buildTestApp({
      clock,
      config: {
        providerBases: { stripe: stripe.base, paypal: undefined, nowpayments: undefined },
        rateLimits: { loginFailures: 10, loginWindowMs: 900_000, publicPerMinute: 5 },
      },
    });
    planId = await seededPlanId(t.ctx, 'professional');
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  const storeSelection = (ip: string, cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/store-selection.php',
      payload: { plan_id: planId, billing_cycle: 'monthly' },
      remoteAddress: ip,
      ...(cookie ? { cookies: { sr_selection: cookie } } : {}),
    });
  const visitorRows = () =>
    t.ctx.db.selectFrom('plan_selections').selectAll().where('customer_id', 'is', null).execute();

  describe('store-selection (item 14)', () => {
    it('limits anonymous selections per IP', async () => {
      const before = (await visitorRows()).length;
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await storeSelection('10.14.0.1')).statusCode);
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses.slice(5)).toEqual([429, 429]);
      // Only the allowed calls wrote a visitor row (each without a cookie: a new visitor).
      expect((await visitorRows()).length).toBe(before + 5);
      expect((await storeSelection('10.14.0.2')).statusCode).toBe(200);
      // A signed-in customer only updates its own row: not counted against the IP.
      const customer = await buildCustomer(t.ctx);
      const own = await t.app.inject({
        method: 'POST',
        url: '/api/subscriptions/store-selection.php',
        payload: { plan_id: planId, billing_cycle: 'monthly' },
        headers: bearer(await customerToken(t.ctx, customer.id)),
        remoteAddress: '10.14.0.1',
      });
      expect(own.statusCode).toBe(200);
    });

    it('purges visitor selections untouched for 30 days, and keeps customers’ selections', async () => {
      await storeSelection('10.14.0.6');
      const fresh = await storeSelection('10.14.0.3');
      const cookie = fresh.cookies.find((c) => c.name === 'sr_selection')!;
      expect(cookie.maxAge).toBe(30 * 24 * 3600);
      const customer = await buildCustomer(t.ctx);
      const stored = await t.app.inject({
        method: 'POST',
        url: '/api/subscriptions/store-selection.php',
        payload: { plan_id: planId, billing_cycle: 'yearly' },
        headers: bearer(await customerToken(t.ctx, customer.id)),
        remoteAddress: '10.14.0.4',
      });
      expect(stored.statusCode).toBe(200);
      const visitorsBefore = (await visitorRows()).length;
      expect(visitorsBefore).toBeGreaterThan(1);

      // 29 days later the visitor updates one choice: that row stays, the others go at day 31.
      clock.advance(29 * DAY_MS);
      expect((await storeSelection('10.14.0.5', cookie.value)).statusCode).toBe(200);
      expect(await purgeVisitorSelections(t.ctx)).toBe(0);
      clock.advance(2 * DAY_MS);
      expect(await purgeVisitorSelections(t.ctx)).toBe(visitorsBefore - 1);
      const left = await visitorRows();
      expect(left).toHaveLength(1);
      const customerRow = await t.ctx.db
        .selectFrom('plan_selections')
        .select('billing_cycle')
        .where('customer_id', '=', customer.id)
        .executeTakeFirst();
      expect(customerRow?.billing_cycle).toBe('yearly');
    });

    it('runs the purge as a scheduled job', () => {
      const job = buildJobs(t.ctx).find((j) => j.name === 'visitor-selection-purge');
      expect(job?.intervalMs).toBeLessThanOrEqual(DAY_MS);
    });
  });

  describe('customer portal return_url (item 12)', () => {
    it('sends Stripe only return URLs on the site origin', async () => {
      await t.ctx.settings.save('stripe', {
        enabled: true,
        test_mode: '1',
        secret_key_test: 'sk_test_stub',
        webhook_secret: 'whsec_test',
      });
      const customer = await buildCustomer(t.ctx, { stripe_customer_id: 'cus_portal' });
      await buildSubscription(t.ctx, customer.id, { provider: 'stripe', provider_subscription_id: 'sub_1' });
      const headers = bearer(await customerToken(t.ctx, customer.id));
      const returnUrlSent = async (return_url: string) => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/subscriptions/customer-portal.php',
          payload: { return_url },
          headers,
        });
        expect(res.statusCode).toBe(200);
        const request = stripe.requests.filter((r) => r.path === '/v1/billing_portal/sessions').pop()!;
        return parseStripeForm(request.rawBody).return_url;
      };
      const fallback = 'http://127.0.0.1:9999/client?tab=subscription';
      // The test site is http://127.0.0.1:9999: these begin with it but lead elsewhere.
      expect(await returnUrlSent('http://127.0.0.1:9999@evil.example/phish')).toBe(fallback);
      expect(await returnUrlSent('http://127.0.0.1:99990/')).toBe(fallback);
      expect(await returnUrlSent('http://127.0.0.1:9999.evil.example/')).toBe(fallback);
      expect(await returnUrlSent('https://evil.example/?http://127.0.0.1:9999')).toBe(fallback);
      expect(await returnUrlSent('http://127.0.0.1:9999/client?tab=subscription&x=1')).toBe(
        'http://127.0.0.1:9999/client?tab=subscription&x=1',
      );
    });
  });
});
