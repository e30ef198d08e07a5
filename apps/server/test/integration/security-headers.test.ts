import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';

/** The CSP directives of an answer: name → sources. */
function cspOf(header: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of String(header).split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name, sources);
  }
  return out;
}

describe('security headers', () => {
  let plain: TestApp;
  let https: TestApp;

  beforeAll(async () => {
    plain = await buildTestApp();
    // A second instance on the same database, published over https.
    https = await buildTestApp({
      database: plain.database,
      config: { publicUrl: 'https://ring.example.fr' },
    });
  });
  afterAll(async () => {
    await https.close();
    await plain.close();
  });

  it('sends HSTS for a year, subdomains included, only when PUBLIC_URL is https', async () => {
    for (const url of ['/healthz', '/api/settings.php', '/']) {
      const secure = await https.app.inject({ method: 'GET', url });
      expect(secure.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
      const local = await plain.app.inject({ method: 'GET', url });
      expect(local.headers['strict-transport-security'], url).toBeUndefined();
    }
  });

  it('lets the page connect to its own origin only (API and same-origin socket.io)', async () => {
    for (const app of [plain, https]) {
      const res = await app.app.inject({ method: 'GET', url: '/' });
      const csp = cspOf(res.headers['content-security-policy']);
      expect(csp.get('connect-src')).toEqual(["'self'"]);
      expect(csp.get('default-src')).toEqual(["'self'"]);
      expect(csp.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
      expect(String(res.headers['content-security-policy'])).not.toMatch(/\bwss?:/);
    }
  });
});
