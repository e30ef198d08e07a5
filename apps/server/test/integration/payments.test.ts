import {
  SUBSCRIPTION_MESSAGES,
  ZCheckoutResponse,
  ZCryptoCheckoutResponse,
  ZFinalizeResponse,
} from '@securering/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, ManualClock } from '../../src/lib/clock';
import { signNowPaymentsBody } from '../../src/providers/payments/nowpayments-gateway';
import { runSubscriptionLifecycle } from '../../src/modules/subscriptions/subscription-lifecycle.job';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, customerToken, lastMailTo } from '../factories';
import { NowPaymentsStub } from '../stubs/nowpayments-stub';
import { PaypalStub } from '../stubs/paypal-stub';
import { StripeStub, stripeEvent, stripeSignature } from '../stubs/stripe-stub';
import { parseStripeForm } from '../stubs/stub-server';

const WEBHOOK_SECRET = 'whsec_test_secret';
const IPN_SECRET = 'ipn-secret-123';

describe('checkout, payments and the subscription lifecycle', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T10:00:00.000Z');
  let stripe: StripeStub;
  let paypal: PaypalStub;
  let nowpayments: NowPaymentsStub;
  let plans: Record<string, string>;

  beforeAll(async () => {
    stripe = await new StripeStub().start();
    paypal = await new PaypalStub('paypal-client', 'paypal-secret', 'WH-123').start();
    nowpayments = await new NowPaymentsStub('np-key').start();
    t = await buildTestApp({
      clock,
      config: {
        // The test provider exists only when the operator starts the server with PAYMENT_TEST_MODE=1.
        paymentTestMode: true,
        providerBases: { stripe: stripe.base, paypal: paypal.base, nowpayments: nowpayments.base },
      },
    });
    const rows = await t.ctx.db.selectFrom('plans').select(['id', 'slug']).execute();
    plans = Object.fromEntries(rows.map((r) => [r.slug, r.id]));
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([stripe.stop(), paypal.stop(), nowpayments.stop()]);
  });

  const enableProviders = async (on: boolean) => {
    await t.ctx.settings.save('stripe', {
      enabled: on,
      test_mode: '1',
      secret_key_test: 'sk_test_stub',
      webhook_secret: WEBHOOK_SECRET,
    });
    await t.ctx.settings.save('paypal', {
      enabled: on,
      test_mode: '1',
      client_id_test: 'paypal-client',
      client_secret_test: 'paypal-secret',
      webhook_id: 'WH-123',
    });
    await t.ctx.settings.save('nowpayments', {
      enabled: on,
      test_mode: '1',
      api_key: 'np-key',
      ipn_secret: IPN_SECRET,
    });
  };

  async function payingCustomer() {
    const customer = await buildCustomer(t.ctx);
    return { customer, headers: bearer(await customerToken(t.ctx, customer.id)) };
  }
  const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers });
  const subscriptionsOf = (customerId: string) =>
    t.ctx.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .execute();
  const paymentsOf = (customerId: string) =>
    t.ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .execute();
  const stripeWebhook = (event: object, secret = WEBHOOK_SECRET, timestamp?: number) => {
    const payload = JSON.stringify(event);
    return t.app.inject({
      method: 'POST',
      url: '/api/webhooks/stripe.php',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripeSignature(payload, secret, timestamp ?? Math.floor(Date.now() / 1000)),
      },
      payload,
    });
  };
  const ipn = (body: Record<string, unknown>, signature = signNowPaymentsBody(body, IPN_SECRET)) =>
    t.app.inject({
      method: 'POST',
      url: '/api/webhooks/nowpayments.php',
      headers: { 'content-type': 'application/json', 'x-nowpayments-sig': signature },
      payload: JSON.stringify(body),
    });

  describe('test provider (PAYMENT_TEST_MODE=1, no real provider enabled)', () => {
    beforeEach(() => enableProviders(false));

    it('is offered only while no real provider is enabled', async () => {
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/subscriptions/providers.php' })).json().providers,
      ).toEqual({ card: false, paypal: false, crypto: false, test: true });
      await enableProviders(true);
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/subscriptions/providers.php' })).json().providers,
      ).toEqual({ card: true, paypal: true, crypto: true, test: false });
      const { headers } = await payingCustomer();
      const refused = await post(
        '/api/subscriptions/create-test-checkout.php',
        { plan_id: plans.professional!, billing_period: 'monthly' },
        headers,
      );
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe(SUBSCRIPTION_MESSAGES.testProviderUnavailable);
    });

    it('activates the second plan yearly with video through the one activation path', async () => {
      const { customer, headers } = await payingCustomer();
      // An amount sent by the browser is ignored: the server prices the order.
      const res = await post(
        '/api/subscriptions/create-test-checkout.php',
        { plan_id: plans.professional!, billing_period: 'yearly', video_option: true, amount: 1 },
        headers,
      );
      const body = ZCheckoutResponse.parse(res.json());
      const sessionId = new URL(body.checkout_url, 'http://x').searchParams.get('session_id')!;
      const summary = await t.app.inject({
        method: 'GET',
        url: `/api/subscriptions/test-checkout.php?session_id=${sessionId}`,
        headers,
      });
      expect(summary.json()).toMatchObject({
        plan_name: 'Professional',
        billing_cycle: 'yearly',
        video: true,
        amount: 398,
        currency: 'EUR',
        status: 'pending',
      });

      const other = await payingCustomer();
      expect(
        (
          await t.app.inject({
            method: 'GET',
            url: `/api/subscriptions/test-checkout.php?session_id=${sessionId}`,
            headers: other.headers,
          })
        ).statusCode,
      ).toBe(404);

      const decision = await post(
        '/api/subscriptions/test-checkout.php',
        { session_id: sessionId, action: 'approve' },
        headers,
      );
      expect(decision.json().redirect_url).toBe(`/payment-success?session_id=${sessionId}`);
      const finalized = ZFinalizeResponse.parse(
        (await post('/api/subscriptions/finalize-session.php', { session_id: sessionId }, headers)).json(),
      );
      expect(finalized).toMatchObject({
        status: 'completed',
        plan_name: 'Professional',
        amount: 398,
        expires_at: '2027-11-22T10:00:00.000Z',
      });

      const [subscription] = await subscriptionsOf(customer.id);
      expect(subscription).toMatchObject({
        status: 'active',
        billing_cycle: 'yearly',
        video_enabled: 1,
        auto_renew: 0,
        provider: 'test',
        starts_at: '2026-11-22T10:00:00.000Z',
        expires_at: '2027-11-22T10:00:00.000Z',
      });
      const [payment] = await paymentsOf(customer.id);
      expect(payment).toMatchObject({
        status: 'completed',
        amount_cents: 39800,
        currency: 'EUR',
        provider: 'test',
        payment_type: 'subscription',
        plan_name: 'Professional',
        billing_cycle: 'yearly',
        subscription_id: subscription!.id,
      });
      expect(payment!.transaction_id).toMatch(/^test_txn_/);
      const mail = await lastMailTo(t.ctx, customer.email);
      expect(mail?.template_name).toBe('payment_confirmation');
      expect(mail?.body_text).toContain('398,00\u00a0€');

      // Approving again changes nothing.
      await post(
        '/api/subscriptions/test-checkout.php',
        { session_id: sessionId, action: 'approve' },
        headers,
      );
      expect(await subscriptionsOf(customer.id)).toHaveLength(1);
    });

    it('cancels from the test page and refuses unverified customers', async () => {
      const { customer, headers } = await payingCustomer();
      const { checkout_url } = ZCheckoutResponse.parse(
        (
          await post(
            '/api/subscriptions/create-test-checkout.php',
            { plan_id: plans.starter!, billing_period: 'monthly' },
            headers,
          )
        ).json(),
      );
      const sessionId = new URL(checkout_url, 'http://x').searchParams.get('session_id')!;
      expect(
        (
          await post(
            '/api/subscriptions/test-checkout.php',
            { session_id: sessionId, action: 'cancel' },
            headers,
          )
        ).json().redirect_url,
      ).toBe('/payment-cancelled');
      expect((await paymentsOf(customer.id))[0]).toMatchObject({ status: 'cancelled' });
      expect(await subscriptionsOf(customer.id)).toHaveLength(0);

      const unverified = await buildCustomer(t.ctx, { email_verified: 0, email_verified_at: null });
      const res = await post(
        '/api/subscriptions/create-test-checkout.php',
        { plan_id: plans.starter!, billing_period: 'monthly' },
        bearer(await customerToken(t.ctx, unverified.id)),
      );
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(SUBSCRIPTION_MESSAGES.emailNotVerified);
      const badPlan = await post(
        '/api/subscriptions/create-test-checkout.php',
        { plan_id: 'nope', billing_period: 'monthly' },
        headers,
      );
      expect(badPlan.json().error).toBe(SUBSCRIPTION_MESSAGES.planNotFound);
      const noToken = await post('/api/subscriptions/create-test-checkout.php', {
        plan_id: plans.starter!,
        billing_period: 'monthly',
      });
      expect(noToken.json().error).toBe('Non authentifié');
    });
  });

  describe('plan selection', () => {
    it('stores and restores a customer selection, and carries a visitor selection into the account', async () => {
      const { headers } = await payingCustomer();
      const stored = await post(
        '/api/subscriptions/store-selection.php',
        { plan_id: plans.enterprise!, billing_cycle: 'yearly', video_option: '1' },
        headers,
      );
      expect(stored.json().success).toBe(true);
      const current = await t.app.inject({
        method: 'GET',
        url: '/api/subscriptions/current-selection.php',
        headers,
      });
      expect(current.json()).toEqual({
        success: true,
        data: { plan_id: plans.enterprise, billing_cycle: 'yearly', video_option: true },
      });
      expect(
        (await post('/api/subscriptions/store-selection.php', { plan_id: 'missing' }, headers)).statusCode,
      ).toBe(400);

      const visitor = await post('/api/subscriptions/store-selection.php', {
        plan_id: plans.starter!,
        billing_cycle: 'monthly',
      });
      const cookie = String(visitor.headers['set-cookie']).split(';')[0]!;
      expect(cookie).toMatch(/^sr_selection=/);
      expect(String(visitor.headers['set-cookie'])).toContain('HttpOnly');
      const signup = await t.app.inject({
        method: 'GET',
        url: '/api/subscriptions/signup-selection.php',
        headers: { cookie },
      });
      expect(signup.json().data).toEqual({
        plan_id: plans.starter,
        billing_cycle: 'monthly',
        video_option: false,
      });
      const fresh = await payingCustomer();
      const claimed = await t.app.inject({
        method: 'GET',
        url: '/api/subscriptions/current-selection.php',
        headers: { ...fresh.headers, cookie },
      });
      expect(claimed.json().data).toEqual({
        plan_id: plans.starter,
        billing_cycle: 'monthly',
        video_option: false,
      });
    });
  });

  describe('Stripe', () => {
    beforeAll(() => enableProviders(true));

    async function startStripeCheckout(cycle: 'monthly' | 'yearly' = 'monthly', plan = 'starter') {
      const ctx = await payingCustomer();
      const res = await post(
        '/api/subscriptions/create-checkout.php',
        { plan_id: plans[plan]!, billing_period: cycle, video_option: false },
        ctx.headers,
      );
      const body = ZCheckoutResponse.parse(res.json());
      const sessionId = body.checkout_url.split('/').pop()!;
      return { ...ctx, sessionId };
    }

    it('creates a subscription-mode Checkout Session priced by the server, then activates on return', async () => {
      const { customer, headers, sessionId } = await startStripeCheckout('yearly', 'professional');
      const session = stripe.sessions.get(sessionId)!;
      expect(session).toMatchObject({ mode: 'subscription', amount_total: 29900, currency: 'eur' });
      expect(session.metadata).toMatchObject({
        customer_id: customer.id,
        billing_cycle: 'yearly',
        video: '0',
      });
      const create = stripe.requests.find((r) => r.path === '/v1/checkout/sessions')!;
      expect(create.headers.authorization).toBe('Bearer sk_test_stub');
      expect(parseStripeForm(create.rawBody)).toMatchObject({
        mode: 'subscription',
        line_items: {
          '0': {
            quantity: '1',
            price_data: { currency: 'eur', unit_amount: '29900', recurring: { interval: 'year' } },
          },
        },
      });
      expect(
        (
          await t.ctx.db
            .selectFrom('customers')
            .select('stripe_customer_id')
            .where('id', '=', customer.id)
            .executeTakeFirstOrThrow()
        ).stripe_customer_id,
      ).toMatch(/^cus_/);

      const pending = ZFinalizeResponse.parse(
        (await post('/api/subscriptions/finalize-session.php', { session_id: sessionId }, headers)).json(),
      );
      expect(pending.status).toBe('pending');
      stripe.pay(sessionId);
      const done = ZFinalizeResponse.parse(
        (await post('/api/subscriptions/finalize-session.php', { session_id: sessionId }, headers)).json(),
      );
      expect(done.status).toBe('completed');
      const [subscription] = await subscriptionsOf(customer.id);
      expect(subscription).toMatchObject({
        status: 'active',
        provider: 'stripe',
        auto_renew: 1,
        provider_subscription_id: session.subscription,
      });

      // The webhook for the same checkout arrives afterwards: nothing more happens.
      const replay = await stripeWebhook(stripeEvent('checkout.session.completed', session));
      expect(replay.statusCode).toBe(200);
      expect(await subscriptionsOf(customer.id)).toHaveLength(1);
      expect((await subscriptionsOf(customer.id))[0]!.expires_at).toBe(subscription!.expires_at);
    });

    it('refuses forged and stale webhooks and changes nothing', async () => {
      const { customer, sessionId } = await startStripeCheckout();
      const session = stripe.pay(sessionId);
      const forged = await stripeWebhook(stripeEvent('checkout.session.completed', session), 'whsec_wrong');
      expect(forged.statusCode).toBe(400);
      expect(forged.json().error).toBe('Signature invalide');
      const stale = await stripeWebhook(
        stripeEvent('checkout.session.completed', session),
        WEBHOOK_SECRET,
        Math.floor(Date.now() / 1000) - 3600,
      );
      expect(stale.statusCode).toBe(400);
      const unsigned = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/stripe.php',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(stripeEvent('checkout.session.completed', session)),
      });
      expect(unsigned.statusCode).toBe(400);
      expect(await subscriptionsOf(customer.id)).toHaveLength(0);
      expect((await paymentsOf(customer.id))[0]!.status).toBe('pending');
    });

    it('processes an event delivered twice at the same time exactly once', async () => {
      const { customer, sessionId } = await startStripeCheckout();
      const event = stripeEvent('checkout.session.completed', stripe.pay(sessionId));
      const results = await Promise.all([stripeWebhook(event), stripeWebhook(event), stripeWebhook(event)]);
      expect(results.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
      expect(results.some((r) => r.statusCode === 200 && !r.json().duplicate)).toBe(true);
      expect(await subscriptionsOf(customer.id)).toHaveLength(1);
      const payments = await paymentsOf(customer.id);
      expect(payments.filter((p) => p.status === 'completed')).toHaveLength(1);
      const events = await t.ctx.db
        .selectFrom('webhook_events')
        .selectAll()
        .where('event_id', '=', event.id)
        .execute();
      expect(events).toHaveLength(1);
      expect(events[0]!.processed_at).not.toBeNull();
    });

    it('refuses a paid session whose amount differs from the order', async () => {
      const { customer, sessionId } = await startStripeCheckout();
      const session = { ...stripe.pay(sessionId), amount_total: 1 };
      expect((await stripeWebhook(stripeEvent('checkout.session.completed', session))).statusCode).toBe(200);
      const [payment] = await paymentsOf(customer.id);
      expect(payment).toMatchObject({ status: 'failed' });
      expect(payment!.failure_reason).toContain('Montant reçu inattendu');
      expect(await subscriptionsOf(customer.id)).toHaveLength(0);
    });

    it('renews on invoice.paid, suspends after three failed renewals, and follows cancellation', async () => {
      const { customer, headers, sessionId } = await startStripeCheckout('monthly');
      const session = stripe.pay(sessionId);
      await stripeWebhook(stripeEvent('checkout.session.completed', session));
      let [subscription] = await subscriptionsOf(customer.id);
      expect(subscription!.expires_at).toBe('2026-12-22T10:00:00.000Z');

      const periodEnd = Math.floor(Date.parse('2027-01-22T10:00:00.000Z') / 1000);
      const invoice = {
        id: 'in_renew_1',
        object: 'invoice',
        billing_reason: 'subscription_cycle',
        subscription: session.subscription,
        amount_paid: 990,
        amount_due: 990,
        currency: 'eur',
        lines: { data: [{ period: { end: periodEnd } }] },
      };
      await stripeWebhook(stripeEvent('invoice.paid', invoice));
      await stripeWebhook(stripeEvent('invoice.paid', invoice));
      [subscription] = await subscriptionsOf(customer.id);
      expect(subscription!.expires_at).toBe('2027-01-22T10:00:00.000Z');
      expect((await paymentsOf(customer.id)).filter((p) => p.transaction_id === 'in_renew_1')).toHaveLength(
        1,
      );

      for (let attempt = 1; attempt <= 3; attempt++) {
        const failed = {
          id: 'in_renew_2',
          object: 'invoice',
          billing_reason: 'subscription_cycle',
          subscription: session.subscription,
          amount_due: 990,
          currency: 'eur',
          attempt_count: attempt,
        };
        await stripeWebhook(stripeEvent('invoice.payment_failed', failed));
        [subscription] = await subscriptionsOf(customer.id);
        expect(subscription!.status).toBe(attempt < 3 ? 'active' : 'suspended');
      }
      const failures = (await paymentsOf(customer.id)).filter((p) => p.status === 'failed');
      expect(failures).toHaveLength(3);
      expect(failures[0]!.failure_reason).toBe('Paiement refusé par la banque');
      expect((await lastMailTo(t.ctx, customer.email))?.template_name).toBe('payment_failed');

      // A later successful charge lifts the suspension.
      await stripeWebhook(
        stripeEvent('invoice.paid', {
          ...invoice,
          id: 'in_renew_3',
          lines: { data: [{ period: { end: periodEnd + 31 * 86400 } }] },
        }),
      );
      [subscription] = await subscriptionsOf(customer.id);
      expect(subscription).toMatchObject({ status: 'active', failed_payment_count: 0 });

      // Cancelling keeps access until the end and tells Stripe to stop renewing.
      const cancel = await post('/api/subscriptions/cancel.php', {}, headers);
      expect(cancel.json().message).toContain('ne sera pas renouvelé');
      expect(stripe.subscriptions.get(session.subscription!)?.cancel_at_period_end).toBe(true);
      [subscription] = await subscriptionsOf(customer.id);
      expect(subscription).toMatchObject({ status: 'active', auto_renew: 0 });
      expect((await post('/api/subscriptions/cancel.php', {}, headers)).statusCode).toBe(409);
      await stripeWebhook(
        stripeEvent('customer.subscription.deleted', {
          id: session.subscription,
          object: 'subscription',
          cancel_at_period_end: true,
        }),
      );
      expect((await subscriptionsOf(customer.id))[0]!.status).toBe('cancelled');
    });

    it('opens the billing portal for card customers only', async () => {
      const { customer, headers, sessionId } = await startStripeCheckout();
      await stripeWebhook(stripeEvent('checkout.session.completed', stripe.pay(sessionId)));
      const portal = await post(
        '/api/subscriptions/customer-portal.php',
        { return_url: 'http://127.0.0.1:9999/client?tab=subscription' },
        headers,
      );
      expect(portal.json().portal_url).toMatch(new RegExp(`^${stripe.base}/portal/`));
      const portalRequest = stripe.requests.filter((r) => r.path === '/v1/billing_portal/sessions').pop()!;
      expect(decodeURIComponent(portalRequest.rawBody)).toContain(
        'return_url=http://127.0.0.1:9999/client?tab=subscription',
      );
      void customer;

      const notCard = await payingCustomer();
      const refused = await post(
        '/api/subscriptions/customer-portal.php',
        { return_url: 'http://127.0.0.1:9999/client' },
        notCard.headers,
      );
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toBe(SUBSCRIPTION_MESSAGES.portalCardOnly);
    });
  });

  describe('PayPal', () => {
    beforeAll(() => enableProviders(true));

    it('creates an order with an approval link, captures it on return and activates once', async () => {
      const { customer, headers } = await payingCustomer();
      const res = await post(
        '/api/subscriptions/create-paypal-checkout.php',
        { plan_id: plans.professional!, billing_period: 'monthly', video_option: true },
        headers,
      );
      const { checkout_url } = ZCheckoutResponse.parse(res.json());
      const orderId = new URL(checkout_url).searchParams.get('token')!;
      expect(paypal.orders.get(orderId)!.purchase_units[0]!.amount).toEqual({
        currency_code: 'EUR',
        value: '39.80',
      });

      const notApproved = ZFinalizeResponse.parse(
        (await post('/api/subscriptions/finalize-paypal.php', { paypal_order_id: orderId }, headers)).json(),
      );
      expect(notApproved.status).toBe('pending');
      paypal.approve(orderId);
      const done = ZFinalizeResponse.parse(
        (await post('/api/subscriptions/finalize-paypal.php', { paypal_order_id: orderId }, headers)).json(),
      );
      expect(done).toMatchObject({ status: 'completed', amount: 39.8 });
      expect(
        ZFinalizeResponse.parse(
          (
            await post('/api/subscriptions/finalize-paypal.php', { paypal_order_id: orderId }, headers)
          ).json(),
        ).status,
      ).toBe('completed');
      const [subscription] = await subscriptionsOf(customer.id);
      expect(subscription).toMatchObject({
        provider: 'paypal',
        auto_renew: 0,
        video_enabled: 1,
        status: 'active',
      });
      expect((await paymentsOf(customer.id))[0]!.transaction_id).toMatch(/^CAP/);

      const other = await payingCustomer();
      expect(
        (await post('/api/subscriptions/finalize-paypal.php', { paypal_order_id: orderId }, other.headers))
          .statusCode,
      ).toBe(404);
    });

    it('captures from the CHECKOUT.ORDER.APPROVED webhook when the payer never returns, and refuses forged ones', async () => {
      const { customer, headers } = await payingCustomer();
      const { checkout_url } = ZCheckoutResponse.parse(
        (
          await post(
            '/api/subscriptions/create-paypal-checkout.php',
            { plan_id: plans.starter!, billing_period: 'yearly' },
            headers,
          )
        ).json(),
      );
      const orderId = new URL(checkout_url).searchParams.get('token')!;
      paypal.approve(orderId);
      const event = {
        id: `WH-EVT-${orderId}`,
        event_type: 'CHECKOUT.ORDER.APPROVED',
        resource: { id: orderId },
      };
      const forged = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/paypal.php',
        headers: { 'content-type': 'application/json', ...paypal.webhookHeaders(false) },
        payload: JSON.stringify(event),
      });
      expect(forged.statusCode).toBe(400);
      expect(await subscriptionsOf(customer.id)).toHaveLength(0);
      const genuine = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/paypal.php',
        headers: { 'content-type': 'application/json', ...paypal.webhookHeaders(true) },
        payload: JSON.stringify(event),
      });
      expect(genuine.statusCode).toBe(200);
      expect((await subscriptionsOf(customer.id))[0]).toMatchObject({
        status: 'active',
        billing_cycle: 'yearly',
      });
      const again = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/paypal.php',
        headers: { 'content-type': 'application/json', ...paypal.webhookHeaders(true) },
        payload: JSON.stringify(event),
      });
      expect(again.json()).toEqual({ success: true, duplicate: true });
    });
  });

  describe('NOWPayments', () => {
    beforeAll(() => enableProviders(true));

    it('requires a coin, then creates an EUR invoice for it', async () => {
      const { headers } = await payingCustomer();
      const missing = await post(
        '/api/subscriptions/create-crypto-checkout.php',
        { plan_id: plans.starter!, billing_period: 'monthly' },
        headers,
      );
      expect(missing.json().error).toBe('Veuillez sélectionner une crypto-monnaie');
      const res = await post(
        '/api/subscriptions/create-crypto-checkout.php',
        { plan_id: plans.starter!, billing_period: 'monthly', currency: 'btc' },
        headers,
      );
      const body = ZCryptoCheckoutResponse.parse(res.json());
      expect(body).toMatchObject({ crypto_currency: 'BTC', amount_eur: 9.9, crypto_amount: 0.000165 });
      const invoiceId = new URL(body.payment_url).searchParams.get('iid')!;
      expect(nowpayments.invoices.get(invoiceId)).toMatchObject({
        price_amount: 9.9,
        price_currency: 'eur',
        pay_currency: 'btc',
        ipn_callback_url: 'http://127.0.0.1:9999/api/webhooks/nowpayments.php',
      });
    });

    it('activates on a signed "finished" IPN once, and refuses forged, partial and mismatched ones', async () => {
      const { customer, headers } = await payingCustomer();
      const body = ZCryptoCheckoutResponse.parse(
        (
          await post(
            '/api/subscriptions/create-crypto-checkout.php',
            { plan_id: plans.professional!, billing_period: 'yearly', currency: 'ETH' },
            headers,
          )
        ).json(),
      );
      const invoiceId = new URL(body.payment_url).searchParams.get('iid')!;

      const forged = await ipn(nowpayments.ipn(invoiceId, 'finished'), 'f'.repeat(128));
      expect(forged.statusCode).toBe(400);
      const partial = await ipn(nowpayments.ipn(invoiceId, 'partially_paid'));
      expect(partial.statusCode).toBe(200);
      expect((await paymentsOf(customer.id))[0]).toMatchObject({ status: 'pending' });
      expect((await paymentsOf(customer.id))[0]!.failure_reason).toContain('Paiement partiel');
      expect(await subscriptionsOf(customer.id)).toHaveLength(0);

      const finished = nowpayments.ipn(invoiceId, 'finished');
      expect((await ipn(finished)).statusCode).toBe(200);
      expect((await ipn(finished)).json()).toEqual({ success: true, duplicate: true });
      expect(await subscriptionsOf(customer.id)).toHaveLength(1);
      expect((await paymentsOf(customer.id))[0]).toMatchObject({
        status: 'completed',
        provider: 'nowpayments',
        amount_cents: 29900,
        failure_reason: null,
      });

      const second = await payingCustomer();
      const other = ZCryptoCheckoutResponse.parse(
        (
          await post(
            '/api/subscriptions/create-crypto-checkout.php',
            { plan_id: plans.starter!, billing_period: 'monthly', currency: 'USDT' },
            second.headers,
          )
        ).json(),
      );
      const otherInvoice = new URL(other.payment_url).searchParams.get('iid')!;
      await ipn(nowpayments.ipn(otherInvoice, 'finished', { price_amount: 0.5 }));
      expect((await paymentsOf(second.customer.id))[0]).toMatchObject({ status: 'failed' });
      expect(await subscriptionsOf(second.customer.id)).toHaveLength(0);
    });

    it('closes expired crypto payments', async () => {
      const { customer, headers } = await payingCustomer();
      const body = ZCryptoCheckoutResponse.parse(
        (
          await post(
            '/api/subscriptions/create-crypto-checkout.php',
            { plan_id: plans.starter!, billing_period: 'monthly', currency: 'USDC' },
            headers,
          )
        ).json(),
      );
      await ipn(nowpayments.ipn(new URL(body.payment_url).searchParams.get('iid')!, 'expired'));
      expect((await paymentsOf(customer.id))[0]).toMatchObject({
        status: 'cancelled',
        failure_reason: 'Paiement crypto expiré',
      });
    });
  });

  describe('lifecycle with a controllable clock', () => {
    beforeAll(() => enableProviders(false));

    it('reminds 7 days before a non-renewing end, expires at the end, and closes abandoned checkouts', async () => {
      clock.set('2026-11-22T10:00:00.000Z');
      const { customer, headers } = await payingCustomer();
      const { checkout_url } = ZCheckoutResponse.parse(
        (
          await post(
            '/api/subscriptions/create-test-checkout.php',
            { plan_id: plans.starter!, billing_period: 'monthly' },
            headers,
          )
        ).json(),
      );
      await post(
        '/api/subscriptions/test-checkout.php',
        { session_id: new URL(checkout_url, 'http://x').searchParams.get('session_id')!, action: 'approve' },
        headers,
      );
      const abandoned = await payingCustomer();
      await post(
        '/api/subscriptions/create-test-checkout.php',
        { plan_id: plans.starter!, billing_period: 'monthly' },
        abandoned.headers,
      );

      clock.set('2026-12-10T10:00:00.000Z');
      const first = await runSubscriptionLifecycle(t.ctx);
      expect(first).toMatchObject({ reminded: 0, expired: 0 });
      expect(first.abandoned).toBeGreaterThanOrEqual(1);
      expect((await paymentsOf(abandoned.customer.id))[0]).toMatchObject({
        status: 'cancelled',
        failure_reason: 'Paiement abandonné',
      });

      clock.set('2026-12-16T10:00:00.000Z');
      expect((await runSubscriptionLifecycle(t.ctx)).reminded).toBeGreaterThanOrEqual(1);
      const reminder = await lastMailTo(t.ctx, customer.email);
      expect(reminder?.template_name).toBe('subscription_reminder');
      expect(reminder?.body_text).toContain('22 décembre 2026');
      await runSubscriptionLifecycle(t.ctx);
      expect(
        await t.ctx.db
          .selectFrom('email_outbox')
          .selectAll()
          .where('to_address', '=', customer.email)
          .where('template_name', '=', 'subscription_reminder')
          .execute(),
      ).toHaveLength(1);

      clock.set('2026-12-22T10:00:01.000Z');
      await runSubscriptionLifecycle(t.ctx);
      expect((await subscriptionsOf(customer.id))[0]!.status).toBe('expired');
      clock.set(new Date(Date.parse('2026-11-22T10:00:00.000Z') + DAY_MS));
    });
  });
});
