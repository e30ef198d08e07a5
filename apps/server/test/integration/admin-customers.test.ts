import fs from 'node:fs';
import path from 'node:path';
import {
  ADMIN_CUSTOMER_MESSAGES as M,
  MESSAGES,
  ZAdminCustomerPaymentsResponse,
  ZAdminCustomerResponse,
  ZAdminCustomersResponse,
  ZAdminCustomerSubscriptionsResponse,
  ZCreateManualSubscriptionResponse,
  type TAdminCustomer,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsTable } from '../../src/db/schema';
import { DAY_MS, ManualClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { storagePaths } from '../../src/lib/storage-paths';
import { activateDueManualSubscriptions } from '../../src/modules/admin-customers/admin-customers.service';
import { TEST_ADMIN, buildTestApp, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
  customerToken,
  ringToken,
} from '../factories';

const LIST = '/api/admin/customers.php';
const subsUrl = (id: string) => `/api/admin/customers/${id}/subscriptions`;
const createSubUrl = (id: string) => `/api/admin/customers/${id}/create-subscription`;
const paymentsUrl = (id: string) => `/api/admin/customers/${id}/payments`;

describe('back office customers', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T10:00:00.000Z');
  let root: Record<string, string>;
  let rootId: string;
  let planIds: Record<'starter' | 'professional' | 'enterprise', string>;

  beforeAll(async () => {
    t = await buildTestApp({
      clock,
      config: { rateLimits: { loginFailures: 100, loginWindowMs: 15 * 60_000, publicPerMinute: 10_000 } },
    });
    const admin = await t.ctx.db
      .selectFrom('admins')
      .select('id')
      .where('username', '=', TEST_ADMIN.username)
      .executeTakeFirstOrThrow();
    rootId = admin.id;
    root = bearer(await adminToken(t.ctx, rootId));
    const plans = await t.ctx.db.selectFrom('plans').select(['id', 'slug']).execute();
    planIds = Object.fromEntries(plans.map((p) => [p.slug, p.id])) as typeof planIds;
  });
  afterAll(() => t.close());

  const req = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers: Record<string, string> = root,
    payload?: unknown,
  ) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  const customerLogin = (email: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/auth/customer-login.php', payload: { email, password } });

  const customerStatus = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/customer-status.php', headers: bearer(token) });

  const newCustomerBody = (overrides: Record<string, unknown> = {}) => ({
    first_name: 'Léa',
    last_name: 'Martin',
    email: `lea.${newId().slice(-8)}@example.com`,
    password: 'Nouveau-Client-1',
    company: 'Martin & Fils',
    phone: '0601020304',
    country: 'FR',
    address_line1: '2 avenue Foch',
    address_line2: '',
    city: 'Lyon',
    postal_code: '69006',
    email_verified: true,
    is_active: true,
    ...overrides,
  });

  async function insertPayment(
    customerId: string,
    overrides: Partial<PaymentsTable> = {},
  ): Promise<PaymentsTable> {
    const now = clock.now().toISOString();
    const row: PaymentsTable = {
      id: newId(),
      customer_id: customerId,
      subscription_id: null,
      plan_id: planIds.professional,
      plan_name: 'Professional',
      billing_cycle: 'monthly',
      video_enabled: 0,
      amount_cents: 2990,
      currency: 'EUR',
      provider: 'stripe',
      status: 'completed',
      payment_type: 'subscription',
      transaction_id: `ch_${newId().slice(-10)}`,
      provider_order_id: null,
      failure_reason: null,
      metadata: '{}',
      created_at: now,
      updated_at: now,
      completed_at: now,
      ...overrides,
    };
    await t.ctx.db.insertInto('payments').values(row).execute();
    return row;
  }

  describe('permissions', () => {
    it('needs an admin token', async () => {
      const res = await req('GET', LIST, {});
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
      const customer = await buildCustomer(t.ctx);
      const asCustomer = await req('GET', LIST, bearer(await customerToken(t.ctx, customer.id)));
      expect(asCustomer.statusCode).toBe(401);
      for (const url of [subsUrl(customer.id), paymentsUrl(customer.id)]) {
        expect((await req('GET', url, {})).statusCode).toBe(401);
      }
      expect((await req('POST', createSubUrl(customer.id), {}, {})).statusCode).toBe(401);
    });

    it('refuses an admin without the client_users module', async () => {
      const admin = await buildAdmin(t.ctx, {
        permissions: [
          ['plans', 'view'],
          ['plans', 'edit'],
        ],
      });
      const h = bearer(await adminToken(t.ctx, admin.id));
      const customer = await buildCustomer(t.ctx);
      for (const url of [LIST, subsUrl(customer.id), paymentsUrl(customer.id)]) {
        const res = await req('GET', url, h);
        expect(res.statusCode).toBe(403);
        expect(res.json().success).toBe(false);
      }
      expect((await req('POST', LIST, h, newCustomerBody())).statusCode).toBe(403);
      expect((await req('DELETE', LIST, h, { id: customer.id })).statusCode).toBe(403);
    });

    it('lets a viewer read but not create, edit or delete', async () => {
      const viewer = await buildAdmin(t.ctx, { permissions: [['client_users', 'view']] });
      const h = bearer(await adminToken(t.ctx, viewer.id));
      const customer = await buildCustomer(t.ctx);
      expect((await req('GET', LIST, h)).statusCode).toBe(200);
      expect((await req('GET', subsUrl(customer.id), h)).statusCode).toBe(200);
      expect((await req('GET', paymentsUrl(customer.id), h)).statusCode).toBe(200);

      const body = newCustomerBody();
      const created = await req('POST', LIST, h, body);
      expect(created.statusCode).toBe(403);
      expect(created.json().error).toBe(MESSAGES.noEditRight);
      expect(
        await t.ctx.db
          .selectFrom('customers')
          .select('id')
          .where('email', '=', body.email)
          .executeTakeFirst(),
      ).toBeUndefined();

      expect((await req('PUT', LIST, h, { id: customer.id, first_name: 'Pirate' })).statusCode).toBe(403);
      expect((await req('DELETE', LIST, h, { id: customer.id })).statusCode).toBe(403);
      const sub = await req('POST', createSubUrl(customer.id), h, {
        plan_id: planIds.starter,
        billing_cycle: 'monthly',
        starts_at: '2026-11-22',
        expires_at: '2026-12-22',
      });
      expect(sub.statusCode).toBe(403);
      const still = await t.ctx.db
        .selectFrom('customers')
        .selectAll()
        .where('id', '=', customer.id)
        .executeTakeFirstOrThrow();
      expect(still.first_name).toBe('Camille');
      expect(
        await t.ctx.db
          .selectFrom('subscriptions')
          .select('id')
          .where('customer_id', '=', customer.id)
          .execute(),
      ).toHaveLength(0);
    });

    it('lets an admin with create but not delete create only', async () => {
      const creator = await buildAdmin(t.ctx, {
        permissions: [
          ['client_users', 'view'],
          ['client_users', 'create'],
        ],
      });
      const h = bearer(await adminToken(t.ctx, creator.id));
      const created = await req('POST', LIST, h, newCustomerBody());
      expect(created.statusCode).toBe(200);
      const id = ZAdminCustomerResponse.parse(created.json()).data.id;
      expect((await req('DELETE', LIST, h, { id })).statusCode).toBe(403);
      expect((await req('PUT', LIST, h, { id, first_name: 'X' })).statusCode).toBe(403);
    });
  });

  describe('list', () => {
    it('pages newest first and searches email, names and company without case', async () => {
      const tag = `zq${newId().slice(-6)}`;
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(60_000);
        const c = await buildCustomer(t.ctx, {
          email: `${tag}.${i}@example.com`,
          first_name: i === 3 ? 'Éloïse' : 'Paul',
          last_name: i === 4 ? 'Vandenberghe' : 'Durand',
          company: i === 2 ? `${tag.toUpperCase()} Industries` : 'Autre',
        });
        made.push(c.id);
      }
      const page = async (query: string) => {
        const res = await req('GET', `${LIST}?${query}`);
        expect(res.statusCode).toBe(200);
        return ZAdminCustomersResponse.parse(res.json());
      };

      const first = await page(`search=${tag}&per_page=2&page=1`);
      expect(first.meta).toEqual({ total: 5, page: 1, per_page: 2 });
      expect(first.data.map((c) => c.id)).toEqual([made[4], made[3]]);
      const third = await page(`search=${tag.toUpperCase()}&per_page=2&page=3`);
      expect(third.data.map((c) => c.id)).toEqual([made[0]]);
      const beyond = await page(`search=${tag}&per_page=2&page=9`);
      expect(beyond.data).toEqual([]);
      expect(beyond.meta.total).toBe(5);

      expect((await page(`search=${encodeURIComponent(`${tag} industries`)}`)).data.map((c) => c.id)).toEqual(
        [made[2]],
      );
      expect((await page('search=VANDENBERGHE')).data.map((c) => c.id)).toContain(made[4]);
      expect((await page(`search=${encodeURIComponent('Éloïse Durand')}`)).data.map((c) => c.id)).toContain(
        made[3],
      );
      // LIKE wildcards in the search are taken literally.
      expect((await page(`search=${encodeURIComponent('%')}`)).meta.total).toBe(0);
      expect((await page(`search=${encodeURIComponent(`${tag[0]}_${tag.slice(2)}`)}`)).meta.total).toBe(0);

      const all = await page('');
      expect(all.meta.per_page).toBe(25);
      expect(all.data[0]!.id).toBe(made[4]);
      expect((await page('per_page=500')).meta.per_page).toBe(100);
      const bad = await req('GET', `${LIST}?page=abc`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ success: false, error: M.invalidPaging });
      expect((await req('GET', `${LIST}?page=0`)).statusCode).toBe(400);
    });

    it('shows the current plan, total spent, Rings count and status, never the hash', async () => {
      const customer = await buildCustomer(t.ctx, {
        email: `figures.${newId().slice(-6)}@example.com`,
        is_active: 0,
        status: 'active',
      });
      const sub = await buildSubscription(t.ctx, customer.id, { planSlug: 'enterprise' });
      await buildRing(t.ctx, customer.id);
      await buildRing(t.ctx, customer.id);
      await insertPayment(customer.id, { subscription_id: sub.id, amount_cents: 39800 });
      await insertPayment(customer.id, { amount_cents: 990 });
      await insertPayment(customer.id, { amount_cents: 5000, status: 'failed' });
      await insertPayment(customer.id, { amount_cents: 7000, status: 'refunded' });
      const res = await req('GET', `${LIST}?search=${customer.email}`);
      expect(res.body).not.toContain('password');
      expect(res.body).not.toContain('argon2');
      const [row] = ZAdminCustomersResponse.parse(res.json()).data;
      expect(row).toMatchObject({
        id: customer.id,
        email: customer.email,
        current_plan: 'Enterprise',
        total_spent: 407.9,
        rings_count: 2,
        is_active: false,
        status: 'suspended',
        email_verified: true,
        company: 'Durand SARL',
        stripe_customer_id: null,
      });
      const none = await buildCustomer(t.ctx);
      const [plain] = ZAdminCustomersResponse.parse(
        (await req('GET', `${LIST}?search=${none.email}`)).json(),
      ).data;
      expect(plain).toMatchObject({ current_plan: null, total_spent: 0, rings_count: 0, status: 'active' });
    });
  });

  describe('create', () => {
    it('requires a password, names and a valid email', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ password: undefined }, M.passwordRequired],
        [{ password: '' }, M.passwordRequired],
        [{ password: 'court' }, 'Mot de passe trop court (8 min)'],
        [{ first_name: '  ' }, 'Prénom requis'],
        [{ last_name: undefined }, 'Nom requis'],
        [{ email: 'pas-un-email' }, 'Email invalide'],
        [{ email: '' }, 'Email requis'],
      ];
      for (const [overrides, message] of cases) {
        const body = newCustomerBody(overrides);
        const res = await req('POST', LIST, root, body);
        expect(res.statusCode, message).toBe(400);
        expect(res.json()).toEqual({ success: false, error: message });
      }
      const broken = await t.app.inject({
        method: 'POST',
        url: LIST,
        headers: { ...root, 'content-type': 'application/json' },
        payload: '{"email":',
      });
      expect(broken.statusCode).toBe(400);
      expect(broken.json().success).toBe(false);
    });

    it('creates the customer, who can then log in; the email is unique without case', async () => {
      const body = newCustomerBody({
        email: `  Mixed.Case.${newId().slice(-6)}@Example.COM `,
        email_verified: false,
      });
      const res = await req('POST', LIST, root, body);
      expect(res.statusCode).toBe(200);
      const parsed = ZAdminCustomerResponse.parse(res.json());
      expect(parsed.message).toBe(M.created);
      const email = (body.email as string).trim().toLowerCase();
      expect(parsed.data).toMatchObject({
        email,
        first_name: 'Léa',
        company: 'Martin & Fils',
        city: 'Lyon',
        email_verified: false,
        is_active: true,
        status: 'active',
        current_plan: null,
        rings_count: 0,
        total_spent: 0,
      });
      expect(res.body).not.toContain('Nouveau-Client-1');
      const stored = await t.ctx.db
        .selectFrom('customers')
        .selectAll()
        .where('id', '=', parsed.data.id)
        .executeTakeFirstOrThrow();
      expect(stored.password_hash).not.toContain('Nouveau-Client-1');
      expect((await customerLogin(email, 'Nouveau-Client-1')).statusCode).toBe(200);

      const dup = await req('POST', LIST, root, newCustomerBody({ email: email.toUpperCase() }));
      expect(dup.statusCode).toBe(409);
      expect(dup.json()).toEqual({ success: false, error: M.emailTaken });

      const log = await t.ctx.db
        .selectFrom('system_logs')
        .selectAll()
        .where('category', '=', 'admin')
        .where('message', '=', 'Client créé')
        .where('details', 'like', `%${parsed.data.id}%`)
        .executeTakeFirstOrThrow();
      expect(log.user_id).toBe(rootId);
      expect(log.details).not.toContain('Nouveau-Client-1');
    });

    it('creates a deactivated account that cannot log in', async () => {
      const body = newCustomerBody({ is_active: false });
      const res = await req('POST', LIST, root, body);
      expect(ZAdminCustomerResponse.parse(res.json()).data).toMatchObject({
        is_active: false,
        status: 'suspended',
      });
      expect((await customerLogin(body.email, body.password)).statusCode).toBe(403);
    });
  });

  describe('edit', () => {
    it('keeps the password unless password_update is set with a non-blank password', async () => {
      const customer = await buildCustomer(t.ctx, { password: 'Ancien-Passe-1' });
      const token = await customerToken(t.ctx, customer.id);

      const res = await req('PUT', LIST, root, {
        id: customer.id,
        first_name: 'Camilla',
        city: 'Nantes',
        password: 'Ignore-Moi-1',
      });
      expect(res.statusCode).toBe(200);
      const parsed = ZAdminCustomerResponse.parse(res.json());
      expect(parsed.message).toBe(M.updated);
      expect(parsed.data).toMatchObject({
        first_name: 'Camilla',
        city: 'Nantes',
        last_name: 'Durand',
        company: 'Durand SARL',
      });
      expect((await customerLogin(customer.email, 'Ancien-Passe-1')).statusCode).toBe(200);
      expect((await customerLogin(customer.email, 'Ignore-Moi-1')).statusCode).toBe(401);
      expect((await customerStatus(token)).statusCode).toBe(200);

      const blank = await req('PUT', LIST, root, { id: customer.id, password: '   ', password_update: true });
      expect(blank.statusCode).toBe(200);
      expect((await customerLogin(customer.email, 'Ancien-Passe-1')).statusCode).toBe(200);
      expect((await customerStatus(token)).statusCode).toBe(200);

      const weak = await req('PUT', LIST, root, {
        id: customer.id,
        password: 'faible',
        password_update: true,
      });
      expect(weak.statusCode).toBe(400);
      expect(weak.json().error).toBe('Mot de passe trop court (8 min)');
    });

    it('changes the password and ends the customer’s and its Ring owner’s sessions', async () => {
      const customer = await buildCustomer(t.ctx, { password: 'Ancien-Passe-1' });
      const ring = await buildRing(t.ctx, customer.id);
      const owner = await buildRingMember(t.ctx, ring.id, {
        role: 'owner',
        customer_id: customer.id,
        email: customer.email,
        password_hash: null,
      });
      const member = await buildRingMember(t.ctx, ring.id);
      const token = await customerToken(t.ctx, customer.id);
      const ownerToken = await ringToken(t.ctx, owner.id);
      const memberToken = await ringToken(t.ctx, member.id);

      const res = await req('PUT', LIST, root, {
        id: customer.id,
        password: 'Nouveau-Passe-2',
        password_update: true,
      });
      expect(res.statusCode).toBe(200);
      expect((await customerLogin(customer.email, 'Ancien-Passe-1')).statusCode).toBe(401);
      expect((await customerLogin(customer.email, 'Nouveau-Passe-2')).statusCode).toBe(200);
      const after = await customerStatus(token);
      expect(after.statusCode).toBe(401);
      expect(after.json().error).toBe(MESSAGES.sessionExpired);
      expect(await t.ctx.sessions.verify('ring', ownerToken)).toBeUndefined();
      expect(await t.ctx.sessions.verify('ring', memberToken)).toBeDefined();

      const log = await t.ctx.db
        .selectFrom('system_logs')
        .selectAll()
        .where('message', '=', 'Client modifié')
        .where('details', 'like', `%${customer.id}%`)
        .executeTakeFirstOrThrow();
      expect(log.user_id).toBe(rootId);
      expect(JSON.parse(log.details!)).toMatchObject({ password_changed: true });
      expect(log.details).not.toContain('Nouveau-Passe-2');
    });

    it('deactivates (ending sessions), verifies email, and refuses a taken email or unknown id', async () => {
      const customer = await buildCustomer(t.ctx, { email_verified: 0, email_verified_at: null });
      const other = await buildCustomer(t.ctx);
      const token = await customerToken(t.ctx, customer.id);

      const res = await req('PUT', LIST, root, { id: customer.id, is_active: false, email_verified: true });
      expect(ZAdminCustomerResponse.parse(res.json()).data).toMatchObject({
        is_active: false,
        status: 'suspended',
        email_verified: true,
      });
      expect((await customerStatus(token)).statusCode).toBe(401);
      const stored = await t.ctx.db
        .selectFrom('customers')
        .selectAll()
        .where('id', '=', customer.id)
        .executeTakeFirstOrThrow();
      expect(stored.status).toBe('suspended');
      expect(stored.email_verified_at).toBe(clock.now().toISOString());
      expect((await customerLogin(customer.email, customer.password)).statusCode).toBe(403);

      const back = await req('PUT', LIST, root, { id: customer.id, is_active: true });
      expect(ZAdminCustomerResponse.parse(back.json()).data.status).toBe('active');
      expect((await customerLogin(customer.email, customer.password)).statusCode).toBe(200);

      const taken = await req('PUT', LIST, root, { id: customer.id, email: other.email.toUpperCase() });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().error).toBe(M.emailTaken);
      const same = await req('PUT', LIST, root, { id: customer.id, email: customer.email.toUpperCase() });
      expect(same.statusCode).toBe(200);

      const missing = await req('PUT', LIST, root, { id: newId(), first_name: 'X' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error).toBe(M.notFound);
      const empty = await req('PUT', LIST, root, { id: customer.id, first_name: '' });
      expect(empty.statusCode).toBe(400);
      expect(empty.json().error).toBe('Prénom requis');
    });

    it('moves the Ring owner memberships to a new email', async () => {
      const customer = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, customer.id);
      const owner = await buildRingMember(t.ctx, ring.id, {
        role: 'owner',
        customer_id: customer.id,
        email: customer.email,
        password_hash: null,
      });
      const email = `nouvelle.${newId().slice(-6)}@example.com`;
      expect((await req('PUT', LIST, root, { id: customer.id, email: email.toUpperCase() })).statusCode).toBe(
        200,
      );
      const stored = await t.ctx.db
        .selectFrom('ring_members')
        .select('email')
        .where('id', '=', owner.id)
        .executeTakeFirstOrThrow();
      expect(stored.email).toBe(email);
      expect((await customerLogin(email, customer.password)).statusCode).toBe(200);
    });
  });

  describe('delete', () => {
    it('deletes the customer with its Rings, their content, files and sessions, and nothing else', async () => {
      const db = t.ctx.db;
      const customer = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, customer.id);
      const ring2 = await buildRing(t.ctx, customer.id);
      const owner = await buildRingMember(t.ctx, ring.id, {
        role: 'owner',
        customer_id: customer.id,
        email: customer.email,
        password_hash: null,
      });
      const member = await buildRingMember(t.ctx, ring.id);
      const member2 = await buildRingMember(t.ctx, ring2.id);
      const subscription = await db
        .selectFrom('subscriptions')
        .select('id')
        .where('customer_id', '=', customer.id)
        .executeTakeFirstOrThrow();
      await insertPayment(customer.id, { subscription_id: subscription.id });

      const other = await buildCustomer(t.ctx);
      const otherRing = await buildRing(t.ctx, other.id);
      const otherMember = await buildRingMember(t.ctx, otherRing.id);
      await insertPayment(other.id);

      const now = clock.now().toISOString();
      const conversationId = newId();
      await db
        .insertInto('conversations')
        .values({
          id: conversationId,
          ring_id: ring.id,
          kind: 'room',
          conversation_key: 'room:general',
          created_at: now,
          last_seq: 1,
        })
        .execute();
      await db
        .insertInto('conversation_participants')
        .values({ conversation_id: conversationId, member_id: member.id, created_at: now })
        .execute();
      await db
        .insertInto('messages')
        .values({
          id: newId(),
          ring_id: ring.id,
          conversation_id: conversationId,
          sender_member_id: member.id,
          content: 'chiffré',
          message_type: 'text',
          client_encrypted: 1,
          is_ephemeral: 0,
          expires_at: null,
          created_at: now,
          seq: 1,
          client_message_id: newId(),
          epoch: 1,
        })
        .execute();
      const fileRow = (ringId: string) => ({
        id: newId(),
        ring_id: ringId,
        folder_path: '/',
        name: 'plan',
        extension: 'bin',
        original_name: 'plan.bin',
        mime_type: 'application/octet-stream',
        size_bytes: 4,
        storage_key: `key-${newId()}`,
        uploaded_by_member_id: null,
        uploaded_at: now,
        updated_at: now,
      });
      await db
        .insertInto('ring_files')
        .values([fileRow(ring.id), fileRow(otherRing.id)])
        .execute();
      await db
        .insertInto('calls')
        .values({
          id: newId(),
          ring_id: ring.id,
          caller_member_id: member.id,
          callee_member_id: owner.id,
          call_type: 'voice',
          status: 'ended',
          started_at: now,
          answered_at: now,
          ended_at: now,
        })
        .execute();
      await db
        .insertInto('customer_tokens')
        .values({
          id: newId(),
          customer_id: customer.id,
          purpose: 'reset_password',
          token_hash: `h-${newId()}`,
          expires_at: now,
          used_at: null,
          login_used_at: null,
          created_at: now,
        })
        .execute();
      await db
        .insertInto('plan_selections')
        .values({
          id: newId(),
          customer_id: customer.id,
          visitor_hash: null,
          plan_id: planIds.starter,
          billing_cycle: 'monthly',
          video_option: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const settingsRow = (owner_type: 'customer' | 'member', owner_id: string) => ({
        id: newId(),
        owner_type,
        owner_id,
        settings: '{}',
        updated_at: now,
      });
      await db
        .insertInto('notification_settings')
        .values([
          settingsRow('customer', customer.id),
          settingsRow('member', member.id),
          settingsRow('member', owner.id),
          settingsRow('customer', other.id),
          settingsRow('member', otherMember.id),
        ])
        .execute();
      const dir = storagePaths.ringFiles(t.ctx.config, ring.id);
      const otherDir = storagePaths.ringFiles(t.ctx.config, otherRing.id);
      for (const d of [dir, otherDir]) {
        fs.mkdirSync(path.join(d, 'sub'), { recursive: true });
        fs.writeFileSync(path.join(d, 'sub', 'blob.enc'), 'data');
      }
      const customerTok = await customerToken(t.ctx, customer.id);
      const memberTok = await ringToken(t.ctx, member.id);
      const member2Tok = await ringToken(t.ctx, member2.id);
      const streamTok = (await t.ctx.sessions.issue('stream', member.id)).token;
      const otherCustomerTok = await customerToken(t.ctx, other.id);
      const otherMemberTok = await ringToken(t.ctx, otherMember.id);

      const missing = await req('DELETE', LIST, root, { id: newId() });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error).toBe(M.notFound);

      const res = await req('DELETE', LIST, root, { id: customer.id });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, message: 'Client supprimé avec ses Rings' });

      const byCustomer = async (id: string) => ({
        customers: (await db.selectFrom('customers').select('id').where('id', '=', id).execute()).length,
        rings: (await db.selectFrom('rings').select('id').where('customer_id', '=', id).execute()).length,
        subscriptions: (
          await db.selectFrom('subscriptions').select('id').where('customer_id', '=', id).execute()
        ).length,
        payments: (await db.selectFrom('payments').select('id').where('customer_id', '=', id).execute())
          .length,
        customer_tokens: (
          await db.selectFrom('customer_tokens').select('id').where('customer_id', '=', id).execute()
        ).length,
        plan_selections: (
          await db.selectFrom('plan_selections').select('id').where('customer_id', '=', id).execute()
        ).length,
      });
      expect(await byCustomer(customer.id)).toEqual({
        customers: 0,
        rings: 0,
        subscriptions: 0,
        payments: 0,
        customer_tokens: 0,
        plan_selections: 0,
      });
      const ringIds = [ring.id, ring2.id];
      expect(
        await db.selectFrom('ring_members').select('id').where('ring_id', 'in', ringIds).execute(),
      ).toHaveLength(0);
      expect(
        await db.selectFrom('conversations').select('id').where('ring_id', 'in', ringIds).execute(),
      ).toHaveLength(0);
      expect(
        await db
          .selectFrom('conversation_participants')
          .select('member_id')
          .where('conversation_id', '=', conversationId)
          .execute(),
      ).toHaveLength(0);
      expect(
        await db.selectFrom('messages').select('id').where('ring_id', 'in', ringIds).execute(),
      ).toHaveLength(0);
      expect(
        await db.selectFrom('ring_files').select('id').where('ring_id', 'in', ringIds).execute(),
      ).toHaveLength(0);
      expect(
        await db.selectFrom('calls').select('id').where('ring_id', 'in', ringIds).execute(),
      ).toHaveLength(0);
      const settings = await db.selectFrom('notification_settings').select('owner_id').execute();
      const owners = settings.map((s) => s.owner_id);
      expect(owners).not.toContain(customer.id);
      expect(owners).not.toContain(member.id);
      expect(owners).not.toContain(owner.id);
      expect(owners).toEqual(expect.arrayContaining([other.id, otherMember.id]));
      const sessions = await db.selectFrom('sessions').select('subject_id').execute();
      for (const subject of [customer.id, member.id, member2.id])
        expect(sessions.map((s) => s.subject_id)).not.toContain(subject);
      expect(await t.ctx.sessions.verify('customer', customerTok)).toBeUndefined();
      expect(await t.ctx.sessions.verify('ring', memberTok)).toBeUndefined();
      expect(await t.ctx.sessions.verify('ring', member2Tok)).toBeUndefined();
      expect(await t.ctx.sessions.verify('stream', streamTok)).toBeUndefined();
      expect(fs.existsSync(dir)).toBe(false);

      // The other customer keeps everything.
      expect(await byCustomer(other.id)).toMatchObject({
        customers: 1,
        rings: 1,
        subscriptions: 1,
        payments: 1,
      });
      expect(
        await db.selectFrom('ring_files').select('id').where('ring_id', '=', otherRing.id).execute(),
      ).toHaveLength(1);
      expect(fs.existsSync(path.join(otherDir, 'sub', 'blob.enc'))).toBe(true);
      expect(await t.ctx.sessions.verify('customer', otherCustomerTok)).toBeDefined();
      expect(await t.ctx.sessions.verify('ring', otherMemberTok)).toBeDefined();

      const log = await db
        .selectFrom('system_logs')
        .selectAll()
        .where('message', '=', 'Client supprimé avec ses Rings')
        .where('details', 'like', `%${customer.id}%`)
        .executeTakeFirstOrThrow();
      expect(log.user_id).toBe(rootId);
      expect(log.category).toBe('admin');
      expect((await req('DELETE', LIST, root, { id: customer.id })).statusCode).toBe(404);
    });
  });

  describe('subscriptions', () => {
    it('lists each subscription with plan, computed status, days left, amount and first Ring', async () => {
      const customer = await buildCustomer(t.ctx);
      // One active subscription per customer (unique index): the old one has been swept to expired.
      const old = await buildSubscription(t.ctx, customer.id, {
        planSlug: 'starter',
        status: 'expired',
        billing_cycle: 'monthly',
        starts_at: '2026-09-01T00:00:00.000Z',
        expires_at: '2026-10-01T00:00:00.000Z',
        created_at: '2026-09-01T00:00:00.000Z',
      });
      const current = await buildSubscription(t.ctx, customer.id, {
        planSlug: 'enterprise',
        billing_cycle: 'yearly',
        video_enabled: 1,
        auto_renew: 1,
        provider: 'stripe',
        expires_at: new Date(clock.now().getTime() + 10 * DAY_MS - 3_600_000).toISOString(),
      });
      await insertPayment(customer.id, {
        subscription_id: current.id,
        amount_cents: 39800,
        created_at: '2026-11-01T00:00:00.000Z',
      });
      await insertPayment(customer.id, {
        subscription_id: current.id,
        amount_cents: 41000,
        created_at: '2026-11-20T00:00:00.000Z',
        currency: 'USD',
      });
      await insertPayment(customer.id, {
        subscription_id: current.id,
        amount_cents: 99999,
        status: 'failed',
        created_at: '2026-11-21T00:00:00.000Z',
      });
      clock.advance(1000);
      const firstRing = await buildRing(t.ctx, customer.id, {
        withSubscription: false,
        is_active: 0,
        name: 'Équipe A',
      });
      clock.advance(1000);
      await buildRing(t.ctx, customer.id, { withSubscription: false, name: 'Équipe B' });

      const res = await req('GET', subsUrl(customer.id));
      expect(res.statusCode).toBe(200);
      const { data } = ZAdminCustomerSubscriptionsResponse.parse(res.json());
      expect(data.map((s) => s.id)).toEqual([current.id, old.id]);
      expect(data[0]).toMatchObject({
        plan_id: planIds.enterprise,
        plan_name: 'Enterprise',
        max_users: -1,
        status: 'active',
        computed_status: 'active',
        days_remaining: 10,
        transaction_amount: 410,
        transaction_currency: 'USD',
        billing_cycle: 'yearly',
        auto_renew: true,
        video_enabled: true,
        provider: 'stripe',
        ring_name: firstRing.name,
        ring_active: false,
        features_chat: true,
        features_voice: true,
        features_video: true,
        storage_gb: 500,
      });
      expect(data[1]).toMatchObject({
        plan_name: 'Starter',
        status: 'expired',
        computed_status: 'expired',
        days_remaining: 0,
        transaction_amount: null,
        transaction_currency: null,
        billing_cycle: 'monthly',
        storage_gb: 5,
        max_users: 10,
      });

      const none = await req('GET', subsUrl(newId()));
      expect(none.statusCode).toBe(404);
      expect(none.json()).toEqual({ success: false, error: M.notFound });
    });

    it('validates the manual subscription form with the spec messages', async () => {
      const customer = await buildCustomer(t.ctx);
      const valid = {
        plan_id: planIds.starter,
        billing_cycle: 'monthly',
        starts_at: '2026-11-22',
        expires_at: '2026-12-22',
        auto_renew: false,
        video_enabled: false,
        notes: '',
      };
      const inactive = await t.ctx.db
        .insertInto('plans')
        .values({
          ...(await t.ctx.db
            .selectFrom('plans')
            .selectAll()
            .where('id', '=', planIds.starter)
            .executeTakeFirstOrThrow()),
          id: newId(),
          slug: `retired-${newId().slice(-6)}`,
          name: 'Retiré',
          is_active: 0,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ plan_id: undefined }, M.choosePlan],
        [{ plan_id: '' }, M.choosePlan],
        [{ billing_cycle: undefined }, M.chooseBillingCycle],
        [{ billing_cycle: 'weekly' }, M.chooseBillingCycle],
        [{ starts_at: undefined }, M.startRequired],
        [{ starts_at: '' }, M.startRequired],
        [{ starts_at: 'demain' }, M.startInvalid],
        [{ expires_at: undefined }, M.expiryRequired],
        [{ expires_at: '2026-13-45' }, M.expiryInvalid],
        [{ expires_at: '2026-11-22' }, M.expiryBeforeStart],
        [{ expires_at: '2026-11-01' }, M.expiryBeforeStart],
        [{ starts_at: '2026-10-01', expires_at: '2026-11-01' }, M.expiryInPast],
        [{ plan_id: newId() }, M.planUnavailable],
        [{ plan_id: inactive.id }, M.planUnavailable],
      ];
      for (const [overrides, message] of cases) {
        const res = await req('POST', createSubUrl(customer.id), root, { ...valid, ...overrides });
        expect(res.statusCode, message).toBe(400);
        expect(res.json()).toEqual({ success: false, error: message });
      }
      expect(
        await t.ctx.db
          .selectFrom('subscriptions')
          .select('id')
          .where('customer_id', '=', customer.id)
          .execute(),
      ).toHaveLength(0);
      const unknown = await req('POST', createSubUrl(newId()), root, valid);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toBe(M.notFound);
    });

    it('creates an active manual subscription replacing the current one and moves the Rings to the plan', async () => {
      const customer = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, customer.id, { plan_slug: 'professional' });
      const previous = await t.ctx.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('customer_id', '=', customer.id)
        .executeTakeFirstOrThrow();

      const res = await req('POST', createSubUrl(customer.id), root, {
        plan_id: planIds.enterprise,
        billing_cycle: 'annual',
        starts_at: clock.now().toISOString(),
        expires_at: '2027-11-22T10:00:00.000Z',
        auto_renew: '1',
        video_enabled: true,
        notes: '  Geste commercial  ',
      });
      expect(res.statusCode).toBe(200);
      const parsed = ZCreateManualSubscriptionResponse.parse(res.json());
      expect(parsed.message).toBe('Abonnement créé');
      expect(parsed.data).toMatchObject({
        plan_name: 'Enterprise',
        status: 'active',
        computed_status: 'active',
        days_remaining: 365,
        billing_cycle: 'yearly',
        provider: 'manual',
        auto_renew: true,
        video_enabled: true,
        notes: 'Geste commercial',
        transaction_amount: null,
        ring_name: ring.name,
      });
      const stored = await t.ctx.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('id', '=', parsed.data.id)
        .executeTakeFirstOrThrow();
      expect(stored.created_by_admin_id).toBe(rootId);
      expect(stored.starts_at).toBe(clock.now().toISOString());
      const replaced = await t.ctx.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('id', '=', previous.id)
        .executeTakeFirstOrThrow();
      expect(replaced.status).toBe('cancelled');
      expect(replaced.cancelled_at).toBe(clock.now().toISOString());
      expect(replaced.notes).toContain('Remplacé par un abonnement manuel');
      const movedRing = await t.ctx.db
        .selectFrom('rings')
        .selectAll()
        .where('id', '=', ring.id)
        .executeTakeFirstOrThrow();
      expect(movedRing.plan_slug).toBe('enterprise');
      expect(movedRing.storage_quota_bytes).toBe(500 * 1024 ** 3);
      expect(
        await t.ctx.db.selectFrom('payments').select('id').where('customer_id', '=', customer.id).execute(),
      ).toHaveLength(0);

      const list = ZAdminCustomersResponse.parse(
        (await req('GET', `${LIST}?search=${customer.email}`)).json(),
      );
      expect(list.data[0]!.current_plan).toBe('Enterprise');
      const subs = ZAdminCustomerSubscriptionsResponse.parse(
        (await req('GET', subsUrl(customer.id))).json(),
      ).data;
      expect(subs.find((s) => s.id === previous.id)?.computed_status).toBe('cancelled');

      const log = await t.ctx.db
        .selectFrom('system_logs')
        .selectAll()
        .where('message', '=', 'Abonnement manuel créé')
        .where('details', 'like', `%${parsed.data.id}%`)
        .executeTakeFirstOrThrow();
      expect(log.user_id).toBe(rootId);
      expect(JSON.parse(log.details!).replaced_subscription_ids).toEqual([previous.id]);
    });

    it('keeps a future manual subscription pending until its start, then starts it', async () => {
      const customer = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, customer.id, { plan_slug: 'professional' });
      const previous = await t.ctx.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('customer_id', '=', customer.id)
        .executeTakeFirstOrThrow();

      const res = await req('POST', createSubUrl(customer.id), root, {
        plan_id: planIds.starter,
        billing_cycle: 'monthly',
        starts_at: '2026-12-01',
        expires_at: '2026-12-31',
      });
      const created = ZCreateManualSubscriptionResponse.parse(res.json()).data;
      expect(created).toMatchObject({
        status: 'pending',
        computed_status: 'pending',
        starts_at: '2026-12-01T00:00:00.000Z',
        expires_at: '2026-12-31T00:00:00.000Z',
        auto_renew: false,
        video_enabled: false,
      });
      expect(
        (
          await t.ctx.db
            .selectFrom('subscriptions')
            .select('status')
            .where('id', '=', previous.id)
            .executeTakeFirstOrThrow()
        ).status,
      ).toBe('active');
      expect(
        (
          await t.ctx.db
            .selectFrom('rings')
            .select('plan_slug')
            .where('id', '=', ring.id)
            .executeTakeFirstOrThrow()
        ).plan_slug,
      ).toBe('professional');
      expect(await activateDueManualSubscriptions(t.ctx)).not.toContain(created.id);

      const saved = clock.now();
      clock.set('2026-12-01T00:00:01.000Z');
      try {
        expect(await activateDueManualSubscriptions(t.ctx)).toContain(created.id);
        expect(await activateDueManualSubscriptions(t.ctx)).not.toContain(created.id);
        // Nine days later: a session opened now (the one from before would be idle for too long).
        const later = bearer(await adminToken(t.ctx, rootId));
        const subs = ZAdminCustomerSubscriptionsResponse.parse(
          (await req('GET', subsUrl(customer.id), later)).json(),
        ).data;
        expect(subs.find((s) => s.id === created.id)?.computed_status).toBe('active');
        expect(subs.find((s) => s.id === previous.id)).toMatchObject({
          status: 'cancelled',
          computed_status: 'cancelled',
        });
        expect(
          (
            await t.ctx.db
              .selectFrom('rings')
              .select('plan_slug')
              .where('id', '=', ring.id)
              .executeTakeFirstOrThrow()
          ).plan_slug,
        ).toBe('starter');
      } finally {
        clock.set(saved);
      }
    });
  });

  describe('payments', () => {
    it('lists payments with labels, computed status and the summary', async () => {
      const customer = await buildCustomer(t.ctx);
      const lapsed = await buildSubscription(t.ctx, customer.id, {
        status: 'expired',
        starts_at: '2025-10-01T00:00:00.000Z',
        expires_at: '2026-10-01T00:00:00.000Z',
      });
      const running = await buildSubscription(t.ctx, customer.id, { planSlug: 'enterprise' });
      const yearly = await insertPayment(customer.id, {
        subscription_id: running.id,
        plan_id: planIds.enterprise,
        plan_name: 'Enterprise',
        billing_cycle: 'yearly',
        amount_cents: 39800,
        provider: 'paypal',
        created_at: '2026-11-21T09:00:00.000Z',
      });
      const old = await insertPayment(customer.id, {
        subscription_id: lapsed.id,
        created_at: '2025-10-01T00:00:00.000Z',
      });
      const failed = await insertPayment(customer.id, {
        status: 'failed',
        failure_reason: 'Carte refusée',
        transaction_id: null,
        created_at: '2026-11-20T00:00:00.000Z',
      });
      await insertPayment(customer.id, { status: 'pending', created_at: '2026-11-19T00:00:00.000Z' });
      await insertPayment(customer.id, {
        status: 'refunded',
        created_at: '2026-11-18T00:00:00.000Z',
        payment_type: 'one-off',
      });
      await insertPayment((await buildCustomer(t.ctx)).id, { amount_cents: 123456 });

      const res = await req('GET', paymentsUrl(customer.id));
      expect(res.statusCode).toBe(200);
      const body = ZAdminCustomerPaymentsResponse.parse(res.json());
      expect(body.data).toHaveLength(5);
      expect(body.data.map((p) => p.computed_status)).toEqual([
        'completed',
        'failed',
        'pending',
        'refunded',
        'completed_expired',
      ]);
      expect(body.data[0]).toEqual({
        id: yearly.id,
        created_at: '2026-11-21T09:00:00.000Z',
        plan_name: 'Enterprise',
        billing_cycle: 'annual',
        amount: 398,
        amount_formatted: '398,00\u00a0€',
        currency: 'EUR',
        payment_provider: 'paypal',
        computed_status: 'completed',
        failure_reason: null,
        payment_type: 'subscription',
        transaction_id: yearly.transaction_id,
        status: 'completed',
      });
      expect(body.data[1]).toMatchObject({
        id: failed.id,
        failure_reason: 'Carte refusée',
        transaction_id: null,
        billing_cycle: 'monthly',
        status: 'failed',
      });
      expect(body.data[3]!.payment_type).toBe('one-off');
      expect(body.data[4]).toMatchObject({
        id: old.id,
        status: 'completed',
        computed_status: 'completed_expired',
      });
      expect(body.summary).toEqual({ total_collected: 427.9, completed_count: 2, failed_count: 1 });

      const empty = ZAdminCustomerPaymentsResponse.parse(
        (await req('GET', paymentsUrl((await buildCustomer(t.ctx)).id))).json(),
      );
      expect(empty).toEqual({
        success: true,
        data: [],
        summary: { total_collected: 0, completed_count: 0, failed_count: 0 },
      });
      const none = await req('GET', paymentsUrl(newId()));
      expect(none.statusCode).toBe(404);
      expect(none.json().error).toBe(M.notFound);
    });
  });

  it('answers the server form of a customer for every field', async () => {
    const res = await req(
      'POST',
      LIST,
      root,
      newCustomerBody({ stripe_customer_id: 'cus_123', paypal_customer_id: '  ' }),
    );
    const data: TAdminCustomer = ZAdminCustomerResponse.parse(res.json()).data;
    expect(Object.keys(data).sort()).toEqual(
      [
        'id',
        'first_name',
        'last_name',
        'company',
        'phone',
        'country',
        'address_line1',
        'address_line2',
        'city',
        'postal_code',
        'email',
        'email_verified',
        'is_active',
        'status',
        'stripe_customer_id',
        'paypal_customer_id',
        'current_plan',
        'total_spent',
        'rings_count',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(data.stripe_customer_id).toBe('cus_123');
    expect(data.paypal_customer_id).toBeNull();
  });
});
