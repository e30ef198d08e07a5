import { MESSAGES, ZAdminLoginResponse } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, ManualClock } from '../../src/lib/clock';
import { hashToken } from '../../src/lib/tokens';
import { TEST_ADMIN, buildTestApp, type TestApp } from '../build-test-app';
import {
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  customerToken,
  ringToken,
} from '../factories';

describe('admin login and sessions', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T10:00:00.000Z');

  beforeAll(async () => {
    t = await buildTestApp({
      clock,
      config: { rateLimits: { loginFailures: 3, loginWindowMs: 15 * 60_000, publicPerMinute: 1000 } },
    });
  });
  afterAll(() => t.close());

  const login = (username: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/admin/auth/login.php', payload: { username, password } });

  it('logs the seeded super admin in with a token and never returns the hash', async () => {
    const res = await login(TEST_ADMIN.username, TEST_ADMIN.password);
    expect(res.statusCode).toBe(200);
    const body = ZAdminLoginResponse.parse(res.json());
    expect(body.admin).toMatchObject({ username: 'root', role: 'super_admin', is_active: true });
    expect(body.token.length).toBeGreaterThanOrEqual(43);
    expect(res.body).not.toContain('argon2');
    expect(res.body).not.toContain('password');
    const stored = await t.ctx.db.selectFrom('sessions').select('token_hash').execute();
    expect(stored.some((s) => s.token_hash === body.token)).toBe(false);
  });

  it('answers the spec message for bad credentials and requires both fields', async () => {
    const wrong = await login(TEST_ADMIN.username, 'not-the-password');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ success: false, error: MESSAGES.adminInvalidCredentials });
    const unknown = await login('nobody', 'whatever');
    expect(unknown.json().error).toBe(MESSAGES.adminInvalidCredentials);
    const missing = await login('', '');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe(MESSAGES.adminLoginRequired);
  });

  it('throttles repeated failures per account, then lets the account in after the window', async () => {
    const victim = await buildAdmin(t.ctx, { username: 'victim', password: 'Victim-Password-1' });
    for (let i = 0; i < 3; i++) expect((await login(victim.username, 'bad')).statusCode).toBe(401);
    const blocked = await login(victim.username, 'Victim-Password-1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toBe(MESSAGES.tooManyRequests);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    clock.advance(16 * 60_000);
    expect((await login(victim.username, 'Victim-Password-1')).statusCode).toBe(200);
  });

  it('refuses a deactivated admin and drops its open sessions at once', async () => {
    const admin = await buildAdmin(t.ctx, { password: 'Some-Password-1' });
    const token = ZAdminLoginResponse.parse((await login(admin.username, 'Some-Password-1')).json()).token;
    const before = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(token),
    });
    expect(before.statusCode).toBe(200);
    await t.ctx.admins.update(admin.id, { is_active: 0 });
    const after = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(token),
    });
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe(MESSAGES.sessionExpired);
    const again = await login(admin.username, 'Some-Password-1');
    expect(again.statusCode).toBe(403);
    expect(again.json().error).toBe(MESSAGES.accountDisabled);
  });

  it('revokes the token on logout', async () => {
    const token = ZAdminLoginResponse.parse(
      (await login(TEST_ADMIN.username, TEST_ADMIN.password)).json(),
    ).token;
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/logout.php',
      headers: bearer(token),
    });
    expect(out.statusCode).toBe(200);
    const after = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/logout.php',
      headers: bearer(token),
    });
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe(MESSAGES.sessionExpired);
  });

  it('ends an admin session after 12 hours without use, while one in use goes on', async () => {
    const signIn = async () =>
      ZAdminLoginResponse.parse((await login(TEST_ADMIN.username, TEST_ADMIN.password)).json()).token;
    const read = (token: string) =>
      t.app.inject({ method: 'GET', url: '/api/admin/settings.php', headers: bearer(token) });
    const idle = await signIn();
    const busy = await signIn();
    expect((await read(idle)).statusCode).toBe(200);
    // Used every 11 hours for a day and a half: still open. The other one is left alone meanwhile.
    for (let i = 0; i < 3; i++) {
      clock.advance(11 * 3600_000);
      expect((await read(busy)).statusCode, `use ${i}`).toBe(200);
    }
    const expired = await read(idle);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error).toBe(MESSAGES.sessionExpired);
    const row = await t.ctx.db
      .selectFrom('sessions')
      .select('revoked_at')
      .where('token_hash', '=', hashToken(idle))
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).toBe(clock.now().toISOString());

    // Just under 12 hours after the last use is fine; just over is not.
    clock.advance(12 * 3600_000 - 60_000);
    expect((await read(busy)).statusCode).toBe(200);
    clock.advance(12 * 3600_000 + 1000);
    expect((await read(busy)).statusCode).toBe(401);
    // Customer sessions have no idle limit (only their 7-day expiry).
    const customer = await buildCustomer(t.ctx);
    const cToken = await customerToken(t.ctx, customer.id);
    clock.advance(2 * DAY_MS);
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/auth/customer-status.php',
      headers: bearer(cToken),
    });
    expect(status.statusCode).toBe(200);
  });

  it('expires admin sessions after 30 days even when used every few hours', async () => {
    const token = ZAdminLoginResponse.parse(
      (await login(TEST_ADMIN.username, TEST_ADMIN.password)).json(),
    ).token;
    for (let elapsed = 0; elapsed < 29 * DAY_MS; elapsed += 10 * 3600_000) {
      clock.advance(10 * 3600_000);
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/admin/settings.php',
        headers: bearer(token),
      });
      expect(res.statusCode).toBe(200);
    }
    clock.advance(2 * DAY_MS - 4 * 3600_000);
    const expired = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(token),
    });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error).toBe(MESSAGES.sessionExpired);
  });

  it('makes a token of one audience worthless for another', async () => {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id);
    const cToken = await customerToken(t.ctx, customer.id);
    const rToken = await ringToken(t.ctx, member.id);
    const aToken = ZAdminLoginResponse.parse(
      (await login(TEST_ADMIN.username, TEST_ADMIN.password)).json(),
    ).token;

    const asAdmin = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/logout.php',
      headers: bearer(rToken),
    });
    expect(asAdmin.statusCode).toBe(401);
    const customerAsAdmin = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(cToken),
    });
    expect(customerAsAdmin.statusCode).toBe(401);
    const adminAsRing = await t.app.inject({
      method: 'POST',
      url: '/api/rings/mint-stream-token.php',
      headers: bearer(aToken),
    });
    expect(adminAsRing.statusCode).toBe(401);
    expect(adminAsRing.json().error).toBe(MESSAGES.sessionExpired);
    const ringOk = await t.app.inject({
      method: 'POST',
      url: '/api/rings/mint-stream-token.php',
      headers: bearer(rToken),
    });
    expect(ringOk.statusCode).toBe(200);
    expect(ringOk.json().stream_token).toEqual(expect.any(String));
    const none = await t.app.inject({ method: 'POST', url: '/api/rings/mint-stream-token.php' });
    expect(none.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
  });

  it('serves the version to signed-in admins only, without caching', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/admin/version.php' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
    expect(anonymous.body).not.toContain(t.ctx.config.version);
    const customer = await buildCustomer(t.ctx);
    const asCustomer = await t.app.inject({
      method: 'GET',
      url: '/api/admin/version.php',
      headers: bearer(await customerToken(t.ctx, customer.id)),
    });
    expect(asCustomer.statusCode).toBe(401);
    const token = ZAdminLoginResponse.parse(
      (await login(TEST_ADMIN.username, TEST_ADMIN.password)).json(),
    ).token;
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/version.php', headers: bearer(token) });
    expect(res.json()).toEqual({ success: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
