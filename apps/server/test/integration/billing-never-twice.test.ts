import {
  PAYMENT_FLAG_LABELS,
  ZAdminTransactionsResponse,
  ZCheckoutResponse,
  ZPlanChangeResponse,
} from '@securering/contract';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppContext } from '../../src/app-context';
import { isUniqueViolation } from '../../src/db/database';
import { migrateTo } from '../../src/db/migrate';
import { DEDUPED_NOTE } from '../../src/db/migrations/20261129-010-one-active-subscription';
import { DAY_MS, ManualClock, systemClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { runSubscriptionLifecycle } from '../../src/modules/subscriptions/subscription-lifecycle.job';
import { seedDatabase } from '../../src/seed/seed';
import { TEST_ADMIN, buildTestApp, testConfig, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildCustomer, buildSubscription, customerToken } from '../factories';
import { StripeStub, stripeEvent, stripeSignature } from '../stubs/stripe-stub';
import { createTestDatabase, type TestDatabase } from '../test-database';

const WEBHOOK_SECRET = 'whsec_billing_secret';
const REPLACED = 'Paiement reçu pour un abonnement remplacé';

/**
 * Issue 25, "Money": a customer is never charged twice. Driven from outside, through the real Stripe
 * SDK against the local Stripe stub: checkouts, Stripe-signed webhooks, the back office.
 */
describe('billing that never charges twice', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T10:00:00.000Z');
  let stripe: StripeStub;
  let plans: Record<string, string>;
  let rootId: string;
  /** A fresh admin session (the clock moves back and forth between tests). */
  const root = async () => bearer(await adminToken(t.ctx, rootId));

  beforeAll(async () => {
    stripe = await new StripeStub().start();
    t = await buildTestApp({
      clock,
      config: { providerBases: { stripe: stripe.base, paypal: undefined, nowpayments: undefined } },
    });
    await t.ctx.settings.save('stripe', {
      enabled: true,
      test_mode: '1',
      secret_key_test: 'sk_test_stub',
      webhook_secret: WEBHOOK_SECRET,
    });
    const rows = await t.ctx.db.selectFrom('plans').select(['id', 'slug']).execute();
    plans = Object.fromEntries(rows.map((r) => [r.slug, r.id]));
    rootId = (await t.ctx.admins.findByUsername(TEST_ADMIN.username))!.id;
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });
  beforeEach(() => {
    stripe.outage = false;
    clock.set('2026-11-22T10:00:00.000Z');
  });

  const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers });
  const stripeWebhook = (event: object) => {
    const payload = JSON.stringify(event);
    return t.app.inject({
      method: 'POST',
      url: '/api/webhooks/stripe.php',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripeSignature(payload, WEBHOOK_SECRET),
      },
      payload,
    });
  };
  const subscriptionsOf = (customerId: string) =>
    t.ctx.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  const activeOf = async (customerId: string) =>
    (await subscriptionsOf(customerId)).filter((s) => s.status === 'active');
  const logs = (message: string) =>
    t.ctx.db.selectFrom('system_logs').selectAll().where('message', '=', message).execute();

  /** Moves the clock on; a fresh session, as the customer would sign in again. */
  async function later(days: number, customerId: string) {
    clock.set(new Date(clock.now().getTime() + days * DAY_MS));
    return bearer(await customerToken(t.ctx, customerId));
  }

  async function customer() {
    const row = await buildCustomer(t.ctx);
    return { customer: row, headers: bearer(await customerToken(t.ctx, row.id)) };
  }

  /** Pays a plan by card: Checkout Session, Stripe's page, the customer back on the return page. */
  async function payByCard(headers: Record<string, string>, plan: string) {
    const res = await post(
      '/api/subscriptions/create-checkout.php',
      { plan_id: plans[plan]!, billing_period: 'monthly', video_option: false },
      headers,
    );
    expect(res.json(), res.body).toMatchObject({ success: true });
    const sessionId = ZCheckoutResponse.parse(res.json()).checkout_url.split('/').pop()!;
    const session = stripe.pay(sessionId);
    const done = await post('/api/subscriptions/finalize-session.php', { session_id: sessionId }, headers);
    expect(done.statusCode).toBe(200);
    expect(done.json().status).toBe('completed');
    return session.subscription!;
  }

  it('[plan change] paying plan B cancels plan A at Stripe; A’s later invoice.paid is recorded, flagged, refunded and never reactivates A', async () => {
    const { customer: c, headers } = await customer();
    const subA = await payByCard(headers, 'starter');
    const subB = await payByCard(await later(10, c.id), 'professional');

    // Stripe was told to end A now: it will not be charged again.
    expect(stripe.cancelled).toContain(subA);
    expect(stripe.cancelled).not.toContain(subB);
    let rows = await subscriptionsOf(c.id);
    expect(rows.map((r) => [r.provider_subscription_id, r.status])).toEqual([
      [subA, 'cancelled'],
      [subB, 'active'],
    ]);

    // Stripe still sends a renewal for A (sent before the cancellation reached it).
    const invoice = stripe.renewalInvoice(subA, 990, new Date('2027-01-22T10:00:00.000Z'));
    const res = await stripeWebhook(stripeEvent('invoice.paid', invoice));
    expect(res.statusCode).toBe(200);

    rows = await subscriptionsOf(c.id);
    expect(rows.filter((r) => r.status === 'active').map((r) => r.provider_subscription_id)).toEqual([subB]);
    expect(rows.find((r) => r.provider_subscription_id === subA)!.status).toBe('cancelled');
    const late = await t.ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('transaction_id', '=', invoice.id)
      .executeTakeFirstOrThrow();
    expect(late).toMatchObject({ amount_cents: 990, flag: 'replaced_subscription_paid', status: 'refunded' });
    expect(stripe.refunds.map((r) => r.payment_intent)).toContain(stripe.invoicePayments.get(invoice.id));
    expect((await logs(REPLACED)).some((l) => l.details?.includes(invoice.id))).toBe(true);

    // The back office lists it with the flag.
    const list = ZAdminTransactionsResponse.parse(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/admin/transactions.php?gateway=stripe',
          headers: await root(),
        })
      ).json(),
    );
    const listed = list.data.find((p) => p.transaction_id === invoice.id)!;
    expect(listed.flag).toBe('replaced_subscription_paid');
    expect(PAYMENT_FLAG_LABELS[listed.flag!]).toBe(REPLACED);

    // Stripe delivering the same event again changes nothing and refunds nothing more.
    const refunds = stripe.refunds.length;
    await stripeWebhook(stripeEvent('invoice.paid', invoice));
    expect(stripe.refunds).toHaveLength(refunds);
    expect(await activeOf(c.id)).toHaveLength(1);
  });

  it('[plan change] a Stripe outage keeps the new plan, queues the cancellation with a log line, and the lifecycle job completes it', async () => {
    const { customer: c, headers } = await customer();
    const subA = await payByCard(headers, 'starter');
    stripe.outage = true;
    const subB = await payByCard(headers, 'enterprise');
    expect(stripe.cancelled).not.toContain(subA);
    expect((await activeOf(c.id)).map((s) => s.provider_subscription_id)).toEqual([subB]);
    const action = await t.ctx.db
      .selectFrom('payment_provider_actions')
      .selectAll()
      .where('reference', '=', subA)
      .executeTakeFirstOrThrow();
    expect(action).toMatchObject({ action: 'cancel_subscription', status: 'pending', attempts: 1 });
    expect(
      (await logs('Résiliation Stripe en attente : nouvel essai par la tâche planifiée')).some((l) =>
        l.details?.includes(subA),
      ),
    ).toBe(true);

    // A renewal of A charged meanwhile is refused a reactivation too, and its refund waits as well.
    const invoice = stripe.renewalInvoice(subA, 990, new Date('2026-12-22T10:00:00.000Z'));
    expect((await stripeWebhook(stripeEvent('invoice.paid', invoice))).statusCode).toBe(200);
    expect((await activeOf(c.id)).map((s) => s.provider_subscription_id)).toEqual([subB]);

    stripe.outage = false;
    const run = await runSubscriptionLifecycle(t.ctx);
    expect(run.providerActions).toBeGreaterThanOrEqual(2);
    expect(stripe.cancelled).toContain(subA);
    expect(stripe.refunds.map((r) => r.payment_intent)).toContain(stripe.invoicePayments.get(invoice.id));
    const after = await t.ctx.db
      .selectFrom('payment_provider_actions')
      .selectAll()
      .where('reference', 'in', [subA, invoice.id])
      .execute();
    expect(after.map((a) => a.status)).toEqual(['done', 'done']);
  });

  it('[same plan] paying the same plan again keeps the time left: the old Stripe subscription ends, the new one is next charged at the new end', async () => {
    const { customer: c, headers } = await customer();
    const first = await payByCard(headers, 'starter');
    const second = await payByCard(await later(10, c.id), 'starter');
    const rows = await subscriptionsOf(c.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'active',
      provider_subscription_id: second,
      expires_at: '2027-01-22T10:00:00.000Z',
    });
    expect(stripe.cancelled).toContain(first);
    expect(stripe.subscriptions.get(second)?.trial_end).toBe(
      Math.floor(Date.parse('2027-01-22T10:00:00.000Z') / 1000),
    );
    // A late renewal of the first one does not touch the row that now follows the second.
    const invoice = stripe.renewalInvoice(first, 990, new Date('2027-02-22T10:00:00.000Z'));
    await stripeWebhook(stripeEvent('invoice.paid', invoice));
    expect((await subscriptionsOf(c.id))[0]!.expires_at).toBe('2027-01-22T10:00:00.000Z');
    expect(
      await t.ctx.db
        .selectFrom('payments')
        .select('flag')
        .where('transaction_id', '=', invoice.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ flag: 'replaced_subscription_paid' });
  });

  it('[back office] a manual subscription replacing a running card one cancels the Stripe subscription', async () => {
    const { customer: c, headers } = await customer();
    const sub = await payByCard(headers, 'starter');
    const res = await post(
      `/api/admin/customers/${c.id}/create-subscription`,
      {
        plan_id: plans.enterprise!,
        billing_cycle: 'annual',
        starts_at: clock.now().toISOString(),
        expires_at: '2027-11-22T10:00:00.000Z',
        notes: '',
      },
      await root(),
    );
    expect(res.statusCode).toBe(200);
    expect(stripe.cancelled).toContain(sub);
    const rows = await subscriptionsOf(c.id);
    expect(rows.filter((r) => r.status === 'active').map((r) => r.provider)).toEqual(['manual']);
    const invoice = stripe.renewalInvoice(sub, 990, new Date('2027-01-22T10:00:00.000Z'));
    await stripeWebhook(stripeEvent('invoice.paid', invoice));
    expect((await activeOf(c.id)).map((r) => r.provider)).toEqual(['manual']);
  });

  it('[back office] deleting a customer cancels its Stripe subscription and refunds a charge that arrives after', async () => {
    const { customer: c, headers } = await customer();
    const sub = await payByCard(headers, 'professional');
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/api/admin/customers.php',
      headers: await root(),
      payload: { id: c.id },
    });
    expect(res.statusCode).toBe(200);
    expect(stripe.cancelled).toContain(sub);
    const invoice = stripe.renewalInvoice(sub, 2990, new Date('2027-01-22T10:00:00.000Z'));
    expect((await stripeWebhook(stripeEvent('invoice.paid', invoice))).statusCode).toBe(200);
    expect(stripe.refunds.map((r) => r.payment_intent)).toContain(stripe.invoicePayments.get(invoice.id));
    expect((await logs(REPLACED)).some((l) => l.details?.includes(invoice.id))).toBe(true);
  });

  it('[invariant] the database refuses a second active subscription for one customer', async () => {
    const { customer: c } = await customer();
    await buildSubscription(t.ctx, c.id, { planSlug: 'starter' });
    const second = buildSubscription(t.ctx, c.id, { planSlug: 'enterprise', id: newId() });
    await expect(second).rejects.toSatisfy(isUniqueViolation);
    // Other states are not limited.
    await buildSubscription(t.ctx, c.id, { planSlug: 'enterprise', status: 'cancelled' });
    await buildSubscription(t.ctx, c.id, { planSlug: 'enterprise', status: 'expired' });
    expect(await activeOf(c.id)).toHaveLength(1);
  });

  it('[checkout] says before payment what happens to the time left', async () => {
    const { customer: c, headers: first } = await customer();
    let headers = first;
    const ask = (planId: string, h: Record<string, string> = headers) =>
      t.app.inject({
        method: 'GET',
        url: `/api/subscriptions/plan-change.php?plan_id=${planId}`,
        headers: h,
      });
    expect(ZPlanChangeResponse.parse((await ask(plans.starter!)).json()).change).toBeNull();

    await payByCard(headers, 'starter');
    headers = await later(10, c.id);
    const replace = ZPlanChangeResponse.parse((await ask(plans.professional!)).json()).change!;
    expect(replace).toMatchObject({
      kind: 'replace',
      current_plan_name: 'Starter',
      days_left: 20,
      renews_by_card: true,
    });
    expect(replace.message).toBe(
      'Votre plan Starter (jusqu’au 22 décembre 2026) sera remplacé dès le paiement. Les 20\u00a0jours restants sont perdus, ni remboursés ni reportés. Son prélèvement automatique par carte est arrêté.',
    );
    const extend = ZPlanChangeResponse.parse((await ask(plans.starter!)).json()).change!;
    expect(extend.kind).toBe('extend');
    expect(extend.message).toContain('Les 20\u00a0jours restants sont conservés.');

    // What the checkout said is what the payment does: the 20 days are gone with the old plan.
    await payByCard(headers, 'professional');
    const active = await activeOf(c.id);
    expect(active).toHaveLength(1);
    expect(active[0]!.expires_at).toBe('2027-01-02T10:00:00.000Z');

    expect((await ask(plans.starter!, {})).statusCode).toBe(401);
    expect((await ask('')).statusCode).toBe(400);
  });
});

describe('the one-active-subscription migration on existing data', () => {
  let database: TestDatabase;
  afterAll(async () => {
    await database?.handle.close();
    await database?.drop();
  });

  it('keeps the newest active subscription of a customer, ends the others and queues their Stripe cancellation', async () => {
    database = await createTestDatabase({ migrate: false });
    const { db } = database.handle;
    await migrateTo(db, '20261128-004-log-deactivated-members');
    const ctx = createAppContext({
      config: testConfig({ dataDir: database.dataDir }),
      database: database.handle,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
    });
    await seedDatabase(ctx);
    const twice = await buildCustomer(ctx);
    const older = await buildSubscription(ctx, twice.id, {
      planSlug: 'starter',
      provider: 'stripe',
      provider_subscription_id: 'sub_old_duplicate',
      auto_renew: 1,
      created_at: '2026-10-01T00:00:00.000Z',
    });
    const newest = await buildSubscription(ctx, twice.id, {
      planSlug: 'professional',
      created_at: '2026-11-01T00:00:00.000Z',
    });
    const once = await buildCustomer(ctx);
    const alone = await buildSubscription(ctx, once.id, { planSlug: 'starter' });

    await migrateTo(db, '20261129-010-one-active-subscription');
    const rows = await db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', 'in', [older.id, newest.id, alone.id])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(newest.id)!.status).toBe('active');
    expect(byId.get(alone.id)!.status).toBe('active');
    expect(byId.get(older.id)).toMatchObject({ status: 'cancelled', auto_renew: 0, notes: DEDUPED_NOTE });
    const actions = await db.selectFrom('payment_provider_actions').selectAll().execute();
    expect(actions.map((a) => [a.action, a.reference, a.status])).toEqual([
      ['cancel_subscription', 'sub_old_duplicate', 'pending'],
    ]);
    // From now on the database itself refuses a second active one.
    await expect(buildSubscription(ctx, once.id, { planSlug: 'enterprise' })).rejects.toSatisfy(
      isUniqueViolation,
    );
  });
});
