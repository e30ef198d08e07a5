import { CSRF_HEADER, CSRF_REFUSED_MESSAGE, MESSAGES } from '@securering/contract';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenOf } from '../../src/plugins/auth';
import { TEST_ADMIN, buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, buildRing, buildRingMember, customerToken, ringToken } from '../factories';
import { listen, openSocket } from '../socket-client';

/** Issue 27 (L5): session tokens in HttpOnly cookies, with a CSRF check on cookie-authenticated writes. */

type SetCookie = { name: string; value: string; attributes: string[] };

/** The Set-Cookie lines of an answer, by cookie name. */
function setCookies(res: LightMyRequestResponse): Map<string, SetCookie> {
  const raw = res.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const out = new Map<string, SetCookie>();
  for (const line of lines) {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    out.set(pair.slice(0, at), {
      name: pair.slice(0, at),
      value: decodeURIComponent(pair.slice(at + 1)),
      attributes: attributes.map((a) => a.toLowerCase()),
    });
  }
  return out;
}

const cookieHeader = (cookies: Record<string, string>) => ({
  cookie: Object.entries(cookies)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('; '),
});

describe('session cookies and CSRF', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimits: { ...testLimits() } } });
    baseUrl = await listen(t.app);
  });
  afterAll(() => t.close());

  function testLimits() {
    return { loginFailures: 50, loginWindowMs: 15 * 60_000, publicPerMinute: 1000 };
  }

  const customerLogin = (email: string, password: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/customer-login.php',
      headers,
      payload: { email, password },
    });

  it('sets the customer token as an HttpOnly, SameSite=Strict cookie on login, with its readable CSRF twin', async () => {
    const customer = await buildCustomer(t.ctx);
    const res = await customerLogin(customer.email, customer.password);
    expect(res.statusCode).toBe(200);
    const { token } = res.json() as { token: string };
    // The JSON answer keeps the token for API clients (spec: the login answer lists it).
    expect(token.length).toBeGreaterThanOrEqual(43);
    const cookies = setCookies(res);
    const session = cookies.get('customer_token')!;
    expect(session.value).toBe(token);
    expect(session.attributes).toEqual(
      expect.arrayContaining(['httponly', 'samesite=strict', 'path=/', `max-age=${7 * 86_400}`]),
    );
    // Plain HTTP without a trusted proxy saying otherwise: no Secure flag (the browser would drop it).
    expect(session.attributes).not.toContain('secure');
    const csrf = cookies.get('customer_csrf')!;
    expect(csrf.value).toBe(csrfTokenOf(token));
    expect(csrf.value).not.toContain(token);
    expect(csrf.attributes).not.toContain('httponly');
    expect(csrf.attributes).toEqual(expect.arrayContaining(['samesite=strict', 'path=/']));
  });

  it('takes a login only as JSON, which a cross-site form cannot send (no login CSRF)', async () => {
    const customer = await buildCustomer(t.ctx);
    for (const [type, payload] of [
      ['text/plain', JSON.stringify({ email: customer.email, password: customer.password })],
      [
        'application/x-www-form-urlencoded',
        new URLSearchParams({ email: customer.email, password: customer.password }).toString(),
      ],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/customer-login.php',
        headers: { 'content-type': type },
        payload,
      });
      // text/plain reaches the route as a string, which the contract refuses; form encodings are not parsed.
      expect([400, 415], type).toContain(res.statusCode);
      expect(setCookies(res).has('customer_token')).toBe(false);
    }
  });

  it('accepts the cookie for reads, and refuses cookie writes without the CSRF header (403, nothing saved)', async () => {
    const customer = await buildCustomer(t.ctx);
    const token = await customerToken(t.ctx, customer.id);
    const cookie = cookieHeader({ customer_token: token });

    const status = await t.app.inject({
      method: 'GET',
      url: '/api/auth/customer-status.php',
      headers: cookie,
    });
    expect(status.statusCode).toBe(200);
    expect(status.json().customer.id).toBe(customer.id);

    const save = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/notifications/save-settings.php',
        headers,
        payload: { settings: { muteAll: true } },
      });
    const read = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/notifications/get-settings.php',
          headers: bearer(token),
        })
      ).json().settings.muteAll as boolean;

    const without = await save(cookie);
    expect(without.statusCode).toBe(403);
    // The refusal names the session's CSRF token (the page alone reads it) for one more try.
    expect(without.json()).toEqual({
      success: false,
      error: CSRF_REFUSED_MESSAGE,
      csrf: { customer: csrfTokenOf(token) },
    });
    const wrong = await save({ ...cookie, [CSRF_HEADER]: csrfTokenOf('another-session-token') });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error).toBe(CSRF_REFUSED_MESSAGE);
    expect(await read()).toBe(false);
    // The refusal brings the right CSRF cookie (a page whose cookie was missing tries again).
    expect(setCookies(without).get('customer_csrf')?.value).toBe(csrfTokenOf(token));

    const proven = await save({ ...cookie, [CSRF_HEADER]: csrfTokenOf(token) });
    expect(proven.statusCode).toBe(200);
    expect(await read()).toBe(true);
  });

  it('needs no CSRF header with a bearer, even when cookies come along', async () => {
    const customer = await buildCustomer(t.ctx);
    const token = await customerToken(t.ctx, customer.id);
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/notifications/save-settings.php',
      headers: { ...bearer(token), ...cookieHeader({ customer_token: 'stale-cookie-of-someone' }) },
      payload: { settings: { callVolume: 0.4 } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().settings.callVolume).toBe(0.4);
  });

  it('marks the cookies Secure behind a trusted HTTPS proxy only', async () => {
    const customer = await buildCustomer(t.ctx);
    const proxied = await customerLogin(customer.email, customer.password, { 'x-forwarded-proto': 'https' });
    // TRUST_PROXY is off in this app: a client's own X-Forwarded-Proto is not believed.
    expect(setCookies(proxied).get('customer_token')!.attributes).not.toContain('secure');

    const behindProxy = await buildTestApp({
      database: t.database,
      config: { trustProxy: 1, rateLimits: testLimits() },
    });
    try {
      const res = await behindProxy.app.inject({
        method: 'POST',
        url: '/api/auth/customer-login.php',
        headers: { 'x-forwarded-proto': 'https' },
        payload: { email: customer.email, password: customer.password },
      });
      expect(res.statusCode).toBe(200);
      const cookies = setCookies(res);
      expect(cookies.get('customer_token')!.attributes).toEqual(
        expect.arrayContaining(['secure', 'httponly', 'samesite=strict']),
      );
      expect(cookies.get('customer_csrf')!.attributes).toContain('secure');
    } finally {
      await behindProxy.close();
    }
  });

  it('logs out with the cookie: the session ends and both cookies are cleared', async () => {
    const customer = await buildCustomer(t.ctx);
    const login = await customerLogin(customer.email, customer.password);
    const token = (login.json() as { token: string }).token;
    const cookie = cookieHeader({ customer_token: token });
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/auth/customer-logout.php',
      headers: cookie,
    });
    expect(refused.statusCode).toBe(403);
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/auth/customer-logout.php',
      headers: { ...cookie, [CSRF_HEADER]: csrfTokenOf(token) },
    });
    expect(out.statusCode).toBe(200);
    const cleared = setCookies(out);
    for (const name of ['customer_token', 'customer_csrf']) {
      expect(cleared.get(name)?.value).toBe('');
      expect(cleared.get(name)?.attributes.some((a) => a.startsWith('expires=thu, 01 jan 1970'))).toBe(true);
    }
    const after = await t.app.inject({
      method: 'GET',
      url: '/api/auth/customer-status.php',
      headers: cookie,
    });
    expect(after.statusCode).toBe(401);
  });

  it('does the same for Ring and admin sessions', async () => {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id, { email: `m_${ring.id.slice(0, 8)}@example.com` });
    const ringLogin = await t.app.inject({
      method: 'POST',
      url: '/api/rings/login.php',
      payload: { email: member.email, password: member.password },
    });
    expect(ringLogin.statusCode).toBe(200);
    const ringSession = setCookies(ringLogin).get('secureChat_token')!;
    expect(ringSession.value).toBe(ringLogin.json().token);
    expect(ringSession.attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/']));
    const ringCookie = cookieHeader({ secureChat_token: ringSession.value });
    const mint = (headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/api/rings/mint-stream-token.php', headers });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: ringCookie })).statusCode,
    ).toBe(200);
    expect((await mint(ringCookie)).statusCode).toBe(403);
    expect((await mint({ ...ringCookie, [CSRF_HEADER]: csrfTokenOf(ringSession.value) })).statusCode).toBe(
      200,
    );

    const adminLogin = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/login.php',
      payload: { username: TEST_ADMIN.username, password: TEST_ADMIN.password },
    });
    const adminSession = setCookies(adminLogin).get('admin_token')!;
    expect(adminSession.attributes).toEqual(
      expect.arrayContaining(['httponly', 'samesite=strict', `max-age=${30 * 86_400}`]),
    );
    const adminCookie = cookieHeader({ admin_token: adminSession.value });
    const version = await t.app.inject({
      method: 'GET',
      url: '/api/admin/version.php',
      headers: adminCookie,
    });
    expect(version.statusCode).toBe(200);
    const saveSettings = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/admin/settings.php',
        headers,
        payload: { category: 'maintenance', settings: { maintenance_mode: '1' } },
      });
    const maintenance = async () =>
      (await t.ctx.settings.read('admin', 'maintenance')).maintenance?.maintenance_mode?.setting_value;
    expect((await saveSettings(adminCookie)).statusCode).toBe(403);
    expect(await maintenance()).not.toBe('1');
    const saved = await saveSettings({ ...adminCookie, [CSRF_HEADER]: csrfTokenOf(adminSession.value) });
    expect(saved.statusCode).toBe(200);
    expect(await maintenance()).toBe('1');
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/settings.php',
      headers: bearer(adminSession.value),
      payload: { category: 'maintenance', settings: { maintenance_mode: '0' } },
    });
  });

  it('serves a visitor call as a visitor when a session cookie comes without its CSRF header', async () => {
    const customer = await buildCustomer(t.ctx);
    const token = await customerToken(t.ctx, customer.id);
    // « Commencer » on the home page posts without the session: it must not be refused (403) nor
    // filed under the customer the browser happens to hold a cookie of.
    const plan = await t.ctx.db
      .selectFrom('plans')
      .select('id')
      .where('is_active', '=', 1)
      .executeTakeFirstOrThrow();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/subscriptions/store-selection.php',
      headers: cookieHeader({ customer_token: token }),
      payload: { plan_id: plan.id, billing_cycle: 'monthly', video_option: false },
    });
    expect(res.statusCode).toBe(200);
    expect(setCookies(res).has('sr_selection')).toBe(true);
  });

  it('files a browser report under the cookie session only when it repeats the CSRF token', async () => {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id);
    const token = await ringToken(t.ctx, member.id);
    const report = (message: string, headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/utils/log.php',
        headers: { ...cookieHeader({ secureChat_token: token }), ...headers },
        payload: { level: 'error', category: 'security', message },
      });
    const entry = (message: string) =>
      t.ctx.db
        .selectFrom('system_logs')
        .select(['user_id', 'category'])
        .where('message', '=', message)
        .executeTakeFirstOrThrow();
    expect((await report('cookie with csrf', { [CSRF_HEADER]: csrfTokenOf(token) })).statusCode).toBe(200);
    expect(await entry('cookie with csrf')).toEqual({ user_id: member.id, category: 'security' });
    // Another site's page can make the browser post a report, not sign it as the member.
    expect((await report('cookie alone', {})).statusCode).toBe(200);
    expect(await entry('cookie alone')).toEqual({ user_id: null, category: 'client' });
  });

  describe('socket.io handshake', () => {
    const connect = (headers: Record<string, string>, auth: Record<string, string> = {}) =>
      openSocket(baseUrl, auth, headers);

    it('opens with the Ring cookie from this site, and joins the Ring', async () => {
      const customer = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, customer.id);
      const member = await buildRingMember(t.ctx, ring.id);
      const token = await ringToken(t.ctx, member.id);
      const socket = await connect({ ...cookieHeader({ secureChat_token: token }), origin: baseUrl });
      try {
        const ack = await socket.timeout(5000).emitWithAck('join_ring', { ringId: ring.id });
        expect(ack.ok).toBe(true);
      } finally {
        socket.close();
      }
    });

    it('refuses another site’s page, a dead cookie and no credential', async () => {
      const customer = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, customer.id);
      const member = await buildRingMember(t.ctx, ring.id);
      const token = await ringToken(t.ctx, member.id);
      await expect(
        connect({ ...cookieHeader({ secureChat_token: token }), origin: 'https://evil.example' }),
      ).rejects.toThrow();
      // A stream token does not help another site either.
      const minted = await t.app.inject({
        method: 'POST',
        url: '/api/rings/mint-stream-token.php',
        headers: bearer(token),
      });
      await expect(
        connect({ origin: 'https://evil.example' }, { token: minted.json().stream_token as string }),
      ).rejects.toThrow();
      await expect(connect(cookieHeader({ secureChat_token: 'not-a-live-session' }))).rejects.toThrow(
        MESSAGES.sessionExpired,
      );
      await expect(connect({ origin: baseUrl })).rejects.toThrow(MESSAGES.notAuthenticated);
    });
  });
});
