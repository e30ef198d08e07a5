import { KEY_API_PATHS } from '@securering/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, buildRing, buildRingMember, ringToken } from '../factories';

/**
 * Key writes (publish, rotate, share, membership-log links) are counted per member and minute:
 * RATE_LIMIT_KEY_WRITES_PER_MIN, 60 by default, 0 for none (benchmarks admitting hundreds).
 */
describe('the key-write limit per member', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function memberToken(app: TestApp): Promise<string> {
    const customer = await buildCustomer(app.ctx);
    const ring = await buildRing(app.ctx, customer.id);
    const member = await buildRingMember(app.ctx, ring.id);
    return ringToken(app.ctx, member.id);
  }
  const appendJunk = (app: TestApp, token: string) =>
    app.app.inject({
      method: 'POST',
      url: KEY_API_PATHS.log,
      headers: bearer(token),
      payload: { link: 'x' },
    });

  it('answers 429 past the limit, counting refused writes too', async () => {
    t = await buildTestApp({ config: { rateLimits: { keyWritesPerMinute: 2 } } });
    const token = await memberToken(t);
    expect((await appendJunk(t, token)).statusCode).toBe(400);
    expect((await appendJunk(t, token)).statusCode).toBe(400);
    const third = await appendJunk(t, token);
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({ success: false });
  });

  it('counts nothing when set to 0, and defaults to 60', async () => {
    t = await buildTestApp({ config: { rateLimits: { keyWritesPerMinute: 0 } } });
    const token = await memberToken(t);
    for (let i = 0; i < 70; i++) expect((await appendJunk(t, token)).statusCode).toBe(400);
    expect(t.ctx.config.rateLimits.keyWritesPerMinute).toBe(0);
    const { loadConfig } = await import('../../src/config');
    expect(
      loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'http://127.0.0.1:1' }).rateLimits.keyWritesPerMinute,
    ).toBe(60);
  });
});
