import { ACCOUNT_MESSAGES } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '../../src/lib/passwords';
import { CustomerRepository } from '../../src/modules/customers/customer.repository';
import { TEST_ADMIN, buildTestApp, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  lastMailTo,
  linkParam,
  mailsTo,
} from '../factories';

describe('account hardening (issue 9)', () => {
  let t: TestApp;
  /** What happened, in order: answers sent (onResponse) and account lookups by email. */
  const events: string[] = [];

  beforeAll(async () => {
    t = await buildTestApp({
      beforeReady: (app) => {
        app.addHook('onResponse', async (request) => {
          events.push(`answered ${request.url}`);
        });
      },
    });
  });
  afterAll(() => t.close());

  const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers });

  describe('forgot password and resend verification (item 15)', () => {
    function traceLookups() {
      const original = CustomerRepository.prototype.findByEmail;
      return vi.spyOn(CustomerRepository.prototype, 'findByEmail').mockImplementation(function (
        this: CustomerRepository,
        ...args
      ) {
        events.push(`lookup ${args[0]}`);
        return original.apply(this, args);
      });
    }

    it('answers forgot-password before looking the address up, known or unknown alike', async () => {
      const known = await buildCustomer(t.ctx);
      const spy = traceLookups();
      try {
        for (const email of [known.email, 'fantome@example.com']) {
          events.length = 0;
          const res = await post('/api/auth/forgot-password.php', { email });
          expect(res.json()).toEqual({ success: true, message: ACCOUNT_MESSAGES.forgotNeutral });
          await vi.waitFor(() => expect(events).toContain(`lookup ${email}`));
          // The request itself did no account work: its answer went out first.
          expect(events).toEqual(['answered /api/auth/forgot-password.php', `lookup ${email}`]);
        }
      } finally {
        spy.mockRestore();
      }
      // The work still happens: the known address gets its link, the unknown one nothing.
      await t.ctx.deferred.idle();
      const mail = await lastMailTo(t.ctx, known.email);
      expect(linkParam(mail!.body_text, '/reset-password', 'token')).toBeTruthy();
      expect(await mailsTo(t.ctx, 'fantome@example.com')).toEqual([]);
    });

    it('answers resend-verification before looking the address up', async () => {
      const unverified = await buildCustomer(t.ctx, { email_verified: 0, email_verified_at: null });
      const spy = traceLookups();
      try {
        for (const email of [unverified.email, 'inconnu@example.com']) {
          events.length = 0;
          const res = await post('/api/auth/resend-verification.php', { email });
          expect(res.json()).toEqual({ success: true, message: ACCOUNT_MESSAGES.resendNeutral });
          await vi.waitFor(() => expect(events).toContain(`lookup ${email}`));
          expect(events).toEqual(['answered /api/auth/resend-verification.php', `lookup ${email}`]);
        }
      } finally {
        spy.mockRestore();
      }
      await t.ctx.deferred.idle();
      expect((await mailsTo(t.ctx, unverified.email)).length).toBe(1);
    });

    it('still refuses a malformed address at once, with nothing deferred', async () => {
      const res = await post('/api/auth/forgot-password.php', { email: 'pas-un-email' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(ACCOUNT_MESSAGES.emailInvalid);
    });
  });

  describe('common passwords (item 17)', () => {
    const COMMON = ACCOUNT_MESSAGES.passwordCommon;
    const registration = (email: string, password: string) => ({
      email,
      first_name: 'Léa',
      last_name: 'Martin',
      password,
      confirm_password: password,
      accept_terms: true,
      accept_privacy: true,
    });

    it('refuses a common password at registration, the same way for a known address', async () => {
      const existing = await buildCustomer(t.ctx);
      for (const email of ['nouvelle@example.com', existing.email]) {
        const res = await post('/api/auth/register.php', registration(email, 'Azerty123'));
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ success: false, error: COMMON });
      }
      const created = await t.ctx.db
        .selectFrom('customers')
        .select('id')
        .where('email', '=', 'nouvelle@example.com')
        .executeTakeFirst();
      expect(created).toBeUndefined();
      const accepted = await post(
        '/api/auth/register.php',
        registration('nouvelle@example.com', 'Tr0mbone-88'),
      );
      expect(accepted.statusCode).toBe(200);
    });

    it('refuses a common password on reset and keeps the link usable', async () => {
      const customer = await buildCustomer(t.ctx);
      await post('/api/auth/forgot-password.php', { email: customer.email });
      await t.ctx.deferred.idle();
      const token = linkParam(
        (await lastMailTo(t.ctx, customer.email))!.body_text,
        '/reset-password',
        'token',
      );
      const refused = await post('/api/auth/reset-password.php', { token, password: 'Password1' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toBe(COMMON);
      const ok = await post('/api/auth/reset-password.php', { token, password: 'Tr0mbone-88' });
      expect(ok.statusCode).toBe(200);
    });

    it('refuses a common password when a member accepts a Ring invitation', async () => {
      const owner = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, owner.id);
      const invited = await buildRingMember(t.ctx, ring.id, { status: 'invited', is_used: 0, used_at: null });
      const body = { invite_code: invited.invite_code, username: 'lea', password: 'motdepasse' };
      const refused = await post('/api/rings/accept-invite.php', body);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toBe(COMMON);
      const accepted = await post('/api/rings/accept-invite.php', { ...body, password: 'Tr0mbone-88' });
      expect(accepted.statusCode).toBe(200);
    });

    it('refuses a common password for admins and for customers the back office creates or edits', async () => {
      const root = (await t.ctx.admins.findByUsername(TEST_ADMIN.username))!;
      const headers = bearer(await adminToken(t.ctx, root.id));
      const call = (method: 'POST' | 'PUT', url: string, payload: object) =>
        t.app.inject({ method, url, payload, headers });

      const admin = { username: 'nouvel.admin', email: 'nouvel.admin@example.com', role: 'admin' };
      const createAdmin = await call('POST', '/api/admin/users.php', { ...admin, password: 'password123' });
      expect(createAdmin.statusCode).toBe(400);
      expect(createAdmin.json().error).toBe(COMMON);
      expect(await t.ctx.admins.findByUsername('nouvel.admin')).toBeUndefined();

      const other = await buildAdmin(t.ctx);
      const editAdmin = await call('PUT', '/api/admin/users.php', {
        id: other.id,
        username: other.username,
        email: other.email,
        role: 'admin',
        password: 'AZERTYUIOP',
      });
      expect(editAdmin.statusCode).toBe(400);
      expect(editAdmin.json().error).toBe(COMMON);
      const stored = await t.ctx.db
        .selectFrom('admins')
        .select('password_hash')
        .where('id', '=', other.id)
        .executeTakeFirstOrThrow();
      expect(await verifyPassword(stored.password_hash, other.password)).toBe(true);

      const customer = { first_name: 'Jean', last_name: 'Dupont', email: 'jean.dupont@example.com' };
      const createCustomer = await call('POST', '/api/admin/customers.php', {
        ...customer,
        password: 'Soleil123',
      });
      expect(createCustomer.statusCode).toBe(400);
      expect(createCustomer.json().error).toBe(COMMON);

      const existing = await buildCustomer(t.ctx);
      const editCustomer = await call('PUT', '/api/admin/customers.php', {
        id: existing.id,
        password: 'Marseille13',
        password_update: true,
      });
      expect(editCustomer.statusCode).toBe(400);
      expect(editCustomer.json().error).toBe(COMMON);
    });
  });
});
