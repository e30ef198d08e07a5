import { MESSAGES } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';

describe('foundation: health, errors, headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      beforeReady(app) {
        app.get('/api/test/boom.php', async () => {
          throw new Error('secret internal detail at /srv/app.ts:42');
        });
      },
    });
  });
  afterAll(() => t.close());

  it('answers /healthz with status ok once the database is reachable', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('answers unknown API paths with a French 404 in the error envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nothing-here.php' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: MESSAGES.notFound });
  });

  it('refuses malformed JSON with a French message', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/login.php',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: MESSAGES.invalidRequest });
  });

  it('refuses bodies over the limit with 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/login.php',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'x'.repeat(2 * 1024 * 1024), password: 'y' }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe(MESSAGES.payloadTooLarge);
  });

  it('hides internals of unexpected errors and returns the request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/test/boom.php' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ success: false, error: MESSAGES.internalError });
    expect(res.body).not.toContain('secret internal detail');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends a CSP that allows no inline script', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    const csp = String(res.headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
    expect(scriptSrc).toContain("'self'");
    expect(scriptSrc).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('gives unknown page paths a 404 status and known app routes a 200', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: '/does-not-exist' });
    expect(unknown.statusCode).toBe(404);
    const known = await t.app.inject({ method: 'GET', url: '/contact' });
    expect(known.statusCode).toBe(200);
  });
});
