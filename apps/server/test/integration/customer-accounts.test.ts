import { ACCOUNT_MESSAGES, MESSAGES, ZCustomerLoginResponse } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, ManualClock, MINUTE_MS } from '../../src/lib/clock';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, lastMailTo, linkParam, mailsTo } from '../factories';

const VALID = {
  email: 'Nouvelle.Cliente@Example.com ',
  first_name: 'Léa',
  last_name: 'Martin',
  password: 'Secret123',
  confirm_password: 'Secret123',
  company: 'Martin & Fils',
  phone: '0601020304',
  country: 'France',
  address_line1: '3 rue des Lilas',
  address_line2: '',
  city: 'Lyon',
  postal_code: '69001',
  accept_terms: true,
  accept_privacy: true,
};

describe('customer accounts', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T09:00:00.000Z');

  beforeAll(async () => {
    t = await buildTestApp({
      clock,
      config: { rateLimits: { loginFailures: 3, loginWindowMs: 15 * MINUTE_MS, publicPerMinute: 1000 } },
    });
  });
  afterAll(() => t.close());

  // Resend and forgot finish their work after answering: wait for it before looking at mails.
  const post = async (url: string, payload: object, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({ method: 'POST', url, payload, headers });
    await t.ctx.deferred.idle();
    return res;
  };
  const register = (payload: object) => post('/api/auth/register.php', payload);
  const login = (payload: object) => post('/api/auth/customer-login.php', payload);
  const countCustomers = async () =>
    Number(
      (
        await t.ctx.db
          .selectFrom('customers')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe('register', () => {
    it.each([
      [{ email: '' }, 'Email requis'],
      [{ email: 'pas-un-email' }, 'Email invalide'],
      [{ first_name: '  ' }, 'Prénom requis'],
      [{ last_name: '' }, 'Nom requis'],
      [{ password: '', confirm_password: '' }, 'Mot de passe requis'],
      [{ password: 'Abc1', confirm_password: 'Abc1' }, 'Mot de passe trop court (8 min)'],
      [{ password: 'secret123', confirm_password: 'secret123' }, 'Mot de passe\u202f: 1 majuscule requise'],
      [{ password: 'Secretabc', confirm_password: 'Secretabc' }, 'Mot de passe\u202f: 1 chiffre requis'],
      [{ confirm_password: 'Secret124' }, 'Les mots de passe ne correspondent pas'],
      [{ accept_terms: false }, ACCOUNT_MESSAGES.acceptanceRequired],
      [{ accept_privacy: false }, ACCOUNT_MESSAGES.acceptanceRequired],
    ])('refuses %j with "%s" and creates nothing', async (override, message) => {
      const before = await countCustomers();
      const res = await register({ ...VALID, ...override });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: message });
      expect(await countCustomers()).toBe(before);
    });

    it('creates the account unverified, trimmed and lower-cased, and mails a verification link', async () => {
      const res = await register(VALID);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        message: 'Compte créé avec succès\u202f! Vérifiez votre email.',
      });
      const row = await t.ctx.db
        .selectFrom('customers')
        .selectAll()
        .where('email', '=', 'nouvelle.cliente@example.com')
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        first_name: 'Léa',
        company: 'Martin & Fils',
        city: 'Lyon',
        email_verified: 0,
        is_active: 1,
      });
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(row.accepted_terms_at).not.toBeNull();
      const mail = await lastMailTo(t.ctx, 'nouvelle.cliente@example.com');
      expect(mail?.subject).toBe('Bienvenue sur SecureRing — confirmez votre adresse email');
      expect(mail?.body_text).toContain('http://127.0.0.1:9999/verify-email?token=');
      const tokenRows = await t.ctx.db
        .selectFrom('customer_tokens')
        .selectAll()
        .where('customer_id', '=', row.id)
        .execute();
      const token = linkParam(mail!.body_text, '/verify-email', 'token');
      expect(tokenRows.every((r) => r.token_hash !== token)).toBe(true);
    });

    it('answers the same for an address that already has an account, whatever its case', async () => {
      const existing = await buildCustomer(t.ctx, { email: 'deja@example.com' });
      const before = await countCustomers();
      const res = await register({ ...VALID, email: 'DEJA@example.com' });
      expect(res.json()).toEqual({
        success: true,
        message: 'Compte créé avec succès\u202f! Vérifiez votre email.',
      });
      expect(await countCustomers()).toBe(before);
      const mail = await lastMailTo(t.ctx, existing.email);
      expect(mail?.subject).toBe('Vous avez déjà un compte SecureRing');
    });
  });

  describe('verification and automatic login', () => {
    let token: string;
    const email = 'verif@example.com';

    beforeAll(async () => {
      await register({ ...VALID, email });
      token = linkParam((await lastMailTo(t.ctx, email))!.body_text, '/verify-email', 'token');
    });

    it('requires a token and refuses unknown ones', async () => {
      const missing = await t.app.inject({ method: 'GET', url: '/api/auth/verify-email.php' });
      expect(missing.json()).toEqual({ success: false, error: 'Token de vérification manquant' });
      const unknown = await t.app.inject({ method: 'GET', url: '/api/auth/verify-email.php?token=nope' });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error).toBe(ACCOUNT_MESSAGES.verificationLinkInvalid);
    });

    it('refuses automatic login before the email is verified', async () => {
      const res = await login({ email, auto_login: true, verification_token: token });
      expect(res.statusCode).toBe(401);
    });

    it('verifies once, then the link is used up', async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/auth/verify-email.php?token=${token}` });
      expect(res.json()).toEqual({
        success: true,
        message: ACCOUNT_MESSAGES.emailVerified,
        customer: { first_name: 'Léa', email },
      });
      const row = await t.ctx.db
        .selectFrom('customers')
        .select(['email_verified', 'email_verified_at'])
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      expect(row.email_verified).toBe(1);
      const again = await t.app.inject({ method: 'GET', url: `/api/auth/verify-email.php?token=${token}` });
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toBe(ACCOUNT_MESSAGES.verificationLinkUsed);
    });

    it('logs in once with the verification token, for the right email only', async () => {
      const wrongEmail = await login({
        email: 'autre@example.com',
        auto_login: true,
        verification_token: token,
      });
      expect(wrongEmail.statusCode).toBe(401);
      const res = await login({ email: email.toUpperCase(), auto_login: true, verification_token: token });
      expect(res.statusCode).toBe(200);
      const body = ZCustomerLoginResponse.parse(res.json());
      expect(body.customer).toMatchObject({ email, email_verified: true });
      const status = await t.app.inject({
        method: 'GET',
        url: '/api/auth/customer-status.php',
        headers: bearer(body.token),
      });
      expect(status.json().customer.id).toBe(body.customer.id);
      const twice = await login({ email, auto_login: true, verification_token: token });
      expect(twice.statusCode).toBe(401);
      expect(twice.json().error).toBe(ACCOUNT_MESSAGES.autoLoginFailed);
    });

    it('expires verification links after 24 hours and the login window after 15 minutes', async () => {
      const other = 'expire@example.com';
      await register({ ...VALID, email: other });
      const expiring = linkParam((await lastMailTo(t.ctx, other))!.body_text, '/verify-email', 'token');
      clock.advance(DAY_MS + MINUTE_MS);
      const late = await t.app.inject({ method: 'GET', url: `/api/auth/verify-email.php?token=${expiring}` });
      expect(late.json().error).toBe(ACCOUNT_MESSAGES.verificationLinkInvalid);

      await post('/api/auth/resend-verification.php', { email: other });
      const fresh = linkParam((await lastMailTo(t.ctx, other))!.body_text, '/verify-email', 'token');
      expect(fresh).not.toBe(expiring);
      expect(
        (await t.app.inject({ method: 'GET', url: `/api/auth/verify-email.php?token=${fresh}` })).statusCode,
      ).toBe(200);
      clock.advance(16 * MINUTE_MS);
      expect((await login({ email: other, auto_login: true, verification_token: fresh })).statusCode).toBe(
        401,
      );
    });
  });

  describe('login', () => {
    it('requires both fields', async () => {
      for (const payload of [{}, { email: 'a@b.fr' }, { password: 'x' }, { email: '', password: '' }]) {
        const res = await login(payload);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('Veuillez remplir tous les champs');
      }
    });

    it('answers the same message for an unknown email and a wrong password', async () => {
      const customer = await buildCustomer(t.ctx);
      const wrong = await login({ email: customer.email, password: 'Wrong-Password-1' });
      const unknown = await login({ email: 'inconnu@example.com', password: 'Wrong-Password-1' });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toEqual({ success: false, error: 'Email ou mot de passe incorrect' });
      expect(unknown.json()).toEqual(wrong.json());
    });

    it('logs in with any case of the email and returns the profile without secrets', async () => {
      const customer = await buildCustomer(t.ctx, { email: 'casse@example.com' });
      const res = await login({ email: '  CASSE@Example.com', password: customer.password });
      expect(res.statusCode).toBe(200);
      const body = ZCustomerLoginResponse.parse(res.json());
      expect(body.customer).toMatchObject({
        id: customer.id,
        email: 'casse@example.com',
        first_name: 'Camille',
      });
      expect(res.body).not.toContain('argon2');
    });

    it('lets an unverified customer in (the space sends it to /verify-email)', async () => {
      const customer = await buildCustomer(t.ctx, { email_verified: 0, email_verified_at: null });
      const res = await login({ email: customer.email, password: customer.password });
      expect(ZCustomerLoginResponse.parse(res.json()).customer.email_verified).toBe(false);
    });

    it('refuses a disabled account and ends its sessions', async () => {
      const customer = await buildCustomer(t.ctx);
      const token = ZCustomerLoginResponse.parse(
        (await login({ email: customer.email, password: customer.password })).json(),
      ).token;
      await t.ctx.db.updateTable('customers').set({ is_active: 0 }).where('id', '=', customer.id).execute();
      const res = await login({ email: customer.email, password: customer.password });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('Compte désactivé');
      const status = await t.app.inject({
        method: 'GET',
        url: '/api/auth/customer-status.php',
        headers: bearer(token),
      });
      expect(status.statusCode).toBe(401);
    });

    it('throttles failed logins per account', async () => {
      const customer = await buildCustomer(t.ctx);
      for (let i = 0; i < 3; i++)
        expect((await login({ email: customer.email, password: 'bad' })).statusCode).toBe(401);
      const blocked = await login({ email: customer.email, password: customer.password });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toBe(MESSAGES.tooManyRequests);
      clock.advance(15 * MINUTE_MS);
      expect((await login({ email: customer.email, password: customer.password })).statusCode).toBe(200);
    });

    it('reports the status of a session and refuses missing or unknown tokens', async () => {
      const none = await t.app.inject({ method: 'GET', url: '/api/auth/customer-status.php' });
      expect(none.json()).toEqual({ success: false, error: 'Non authentifié' });
      const bad = await t.app.inject({
        method: 'GET',
        url: '/api/auth/customer-status.php',
        headers: bearer('x'.repeat(43)),
      });
      expect(bad.json()).toEqual({ success: false, error: 'Session expirée' });
    });

    it('expires customer sessions after 7 days and revokes them on logout', async () => {
      const customer = await buildCustomer(t.ctx);
      const token = ZCustomerLoginResponse.parse(
        (await login({ email: customer.email, password: customer.password })).json(),
      ).token;
      const status = () =>
        t.app.inject({ method: 'GET', url: '/api/auth/customer-status.php', headers: bearer(token) });
      clock.advance(6 * DAY_MS);
      expect((await status()).statusCode).toBe(200);
      clock.advance(DAY_MS + MINUTE_MS);
      expect((await status()).statusCode).toBe(401);

      const second = ZCustomerLoginResponse.parse(
        (await login({ email: customer.email, password: customer.password })).json(),
      ).token;
      expect((await post('/api/auth/customer-logout.php', {}, bearer(second))).statusCode).toBe(200);
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/auth/customer-status.php', headers: bearer(second) }))
          .statusCode,
      ).toBe(401);
    });
  });

  describe('resend and forgot: no account enumeration', () => {
    it('answers resend the same for unknown, unverified and verified addresses, mailing only the unverified', async () => {
      const unverified = await buildCustomer(t.ctx, { email_verified: 0, email_verified_at: null });
      const verified = await buildCustomer(t.ctx);
      const answers = [];
      for (const email of ['personne@example.com', unverified.email, verified.email]) {
        const res = await post('/api/auth/resend-verification.php', { email });
        answers.push([res.statusCode, res.json()]);
      }
      expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
      expect(answers[0]).toEqual([200, { success: true, message: ACCOUNT_MESSAGES.resendNeutral }]);
      expect(await mailsTo(t.ctx, 'personne@example.com')).toHaveLength(0);
      expect(await mailsTo(t.ctx, verified.email)).toHaveLength(0);
      expect((await lastMailTo(t.ctx, unverified.email))?.template_name).toBe('welcome_verification');
      const empty = await post('/api/auth/resend-verification.php', { email: '' });
      expect(empty.json().error).toBe('Veuillez entrer votre adresse email');
    });

    it('caps verification mails per account without changing the answer', async () => {
      const customer = await buildCustomer(t.ctx, { email_verified: 0, email_verified_at: null });
      for (let i = 0; i < 8; i++) {
        const res = await post('/api/auth/resend-verification.php', { email: customer.email });
        expect(res.json().success).toBe(true);
      }
      expect(await mailsTo(t.ctx, customer.email)).toHaveLength(5);
    });

    it('answers forgot-password the same for known and unknown addresses', async () => {
      const customer = await buildCustomer(t.ctx);
      const known = await post('/api/auth/forgot-password.php', { email: customer.email.toUpperCase() });
      const unknown = await post('/api/auth/forgot-password.php', { email: 'fantome@example.com' });
      expect(known.json()).toEqual({ success: true, message: ACCOUNT_MESSAGES.forgotNeutral });
      expect(unknown.json()).toEqual(known.json());
      expect(await mailsTo(t.ctx, 'fantome@example.com')).toHaveLength(0);
      expect((await lastMailTo(t.ctx, customer.email))?.template_name).toBe('password_reset');
    });
  });

  describe('password reset', () => {
    it('sets a new password once, ends every session, and the old password stops working', async () => {
      const customer = await buildCustomer(t.ctx);
      const sessionToken = ZCustomerLoginResponse.parse(
        (await login({ email: customer.email, password: customer.password })).json(),
      ).token;
      await post('/api/auth/forgot-password.php', { email: customer.email });
      const token = linkParam(
        (await lastMailTo(t.ctx, customer.email))!.body_text,
        '/reset-password',
        'token',
      );

      const weak = await post('/api/auth/reset-password.php', { token, password: 'faible' });
      expect(weak.json().error).toBe('Mot de passe trop court (8 min)');
      const noToken = await post('/api/auth/reset-password.php', { password: 'Nouveau123' });
      expect(noToken.json().error).toBe('Lien invalide');

      const ok = await post('/api/auth/reset-password.php', { token, password: 'Nouveau123' });
      expect(ok.json()).toEqual({ success: true, message: ACCOUNT_MESSAGES.passwordReset });
      const reused = await post('/api/auth/reset-password.php', { token, password: 'Encore1234' });
      expect(reused.statusCode).toBe(400);
      expect(reused.json().error).toBe(ACCOUNT_MESSAGES.resetLinkInvalid);

      expect(
        (
          await t.app.inject({
            method: 'GET',
            url: '/api/auth/customer-status.php',
            headers: bearer(sessionToken),
          })
        ).statusCode,
      ).toBe(401);
      expect((await login({ email: customer.email, password: customer.password })).statusCode).toBe(401);
      expect((await login({ email: customer.email, password: 'Nouveau123' })).statusCode).toBe(200);
    });

    it('expires reset links after one hour', async () => {
      const customer = await buildCustomer(t.ctx);
      await post('/api/auth/forgot-password.php', { email: customer.email });
      const token = linkParam(
        (await lastMailTo(t.ctx, customer.email))!.body_text,
        '/reset-password',
        'token',
      );
      clock.advance(HOUR_MS + MINUTE_MS);
      const res = await post('/api/auth/reset-password.php', { token, password: 'Nouveau123' });
      expect(res.json().error).toBe(ACCOUNT_MESSAGES.resetLinkInvalid);
    });
  });

  describe('a plan chosen before registering (issue 25)', () => {
    /** « Commencer » on the home page: the visitor's choice, kept under its cookie. */
    async function visitorChoice(slug: string) {
      const plan = await t.ctx.db
        .selectFrom('plans')
        .select('id')
        .where('slug', '=', slug)
        .executeTakeFirstOrThrow();
      const res = await post('/api/subscriptions/store-selection.php', {
        plan_id: plan.id,
        billing_cycle: 'yearly',
        video_option: true,
      });
      expect(res.statusCode, res.body).toBe(200);
      const cookie = res.cookies.find((c) => c.name === 'sr_selection')!;
      return { planId: plan.id, cookie: `sr_selection=${cookie.value}` };
    }

    const currentSelection = async (token: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/subscriptions/current-selection.php',
          headers: bearer(token),
        })
      ).json().data;

    it('follows the new account, so /subscribe opens on it after verification in any browser', async () => {
      const email = 'choix@example.com';
      const { planId, cookie } = await visitorChoice('enterprise');
      const shown = await t.app.inject({
        method: 'GET',
        url: '/api/subscriptions/signup-selection.php',
        headers: { cookie },
      });
      expect(shown.json().data).toEqual({ plan_id: planId, billing_cycle: 'yearly', video_option: true });
      expect((await post('/api/auth/register.php', { ...VALID, email }, { cookie })).statusCode).toBe(200);
      const token = linkParam((await lastMailTo(t.ctx, email))!.body_text, '/verify-email', 'token');
      expect(
        (await t.app.inject({ method: 'GET', url: `/api/auth/verify-email.php?token=${token}` })).statusCode,
      ).toBe(200);
      // The link is opened in another browser: no visitor cookie there.
      const logged = ZCustomerLoginResponse.parse(
        (await login({ email, auto_login: true, verification_token: token })).json(),
      );
      expect(await currentSelection(logged.token)).toEqual({
        plan_id: planId,
        billing_cycle: 'yearly',
        video_option: true,
      });
    });

    it('is never given to an account that already exists', async () => {
      const known = await buildCustomer(t.ctx, { email: 'deja-choix@example.com' });
      const { cookie } = await visitorChoice('starter');
      expect(
        (await post('/api/auth/register.php', { ...VALID, email: known.email }, { cookie })).statusCode,
      ).toBe(200);
      expect(
        await t.ctx.db
          .selectFrom('plan_selections')
          .select('id')
          .where('customer_id', '=', known.id)
          .execute(),
      ).toEqual([]);
    });
  });
});
