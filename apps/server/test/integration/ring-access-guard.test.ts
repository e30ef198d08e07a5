import { MESSAGES } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, MINUTE_MS } from '../../src/lib/clock';
import { hashToken } from '../../src/lib/tokens';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  bearer,
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
  customerToken,
  ringToken,
} from '../factories';

/**
 * requireRingMember reads the Ring session, its member and the member's Ring in one query: every
 * rule of the separate reads must still hold — a live session of the Ring audience, an active
 * member, a serviceable Ring (active, owner active, current subscription) — with the same answers.
 */
describe('Ring requests: session, member and Ring checked together', () => {
  const clock = new ManualClock(new Date(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS + 30_000));
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp({ clock });
  });
  afterAll(async () => {
    await t.close();
  });

  async function memberWithSession() {
    const customer = await buildCustomer(t.ctx);
    await buildSubscription(t.ctx, customer.id);
    const ring = await buildRing(t.ctx, customer.id, { name: 'Ring du guard' });
    const member = await buildRingMember(t.ctx, ring.id, { username: 'gardien' });
    return { customer, ring, member, token: await ringToken(t.ctx, member.id) };
  }
  const updateSession = (token: string, values: { revoked_at?: string; expires_at?: string }) =>
    t.ctx.db.updateTable('sessions').set(values).where('token_hash', '=', hashToken(token)).execute();
  const info = (headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers });
  const expectRefused = async (headers: Record<string, string>, error: string = MESSAGES.sessionExpired) => {
    const res = await info(headers);
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json()).toEqual({ success: false, error });
  };

  it('serves the member of a live Ring session, as that member of that Ring', async () => {
    const { ring, member, token } = await memberWithSession();
    const res = await info(bearer(token));
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.stringify(res.json())).toContain('Ring du guard');
    const session = await t.ctx.db
      .selectFrom('sessions')
      .select(['subject_id', 'last_used_at'])
      .where('token_hash', '=', hashToken(token))
      .executeTakeFirstOrThrow();
    expect(session.subject_id).toBe(member.id);
    expect(ring.id).toBe(member.ring_id);
  });

  it('records the session’s use once a minute at most', async () => {
    const { token } = await memberWithSession();
    const lastUsed = async () =>
      (
        await t.ctx.db
          .selectFrom('sessions')
          .select('last_used_at')
          .where('token_hash', '=', hashToken(token))
          .executeTakeFirstOrThrow()
      ).last_used_at;
    await info(bearer(token));
    const first = await lastUsed();
    expect(first).toBe(clock.now().toISOString());
    clock.advance(30_000);
    await info(bearer(token));
    expect(await lastUsed()).toBe(first);
    clock.advance(MINUTE_MS);
    await info(bearer(token));
    expect(await lastUsed()).toBe(clock.now().toISOString());
  });

  it('answers "Non authentifié" without a token and "Session expirée" for a token that is not a live Ring session', async () => {
    const { customer } = await memberWithSession();
    await expectRefused({}, MESSAGES.notAuthenticated);
    await expectRefused(bearer('x'.repeat(201)));
    await expectRefused(bearer('not-a-token'));
    // A session of another audience is not a Ring session.
    await expectRefused(bearer(await customerToken(t.ctx, customer.id)));
  });

  it('refuses a revoked or expired session', async () => {
    const revoked = await memberWithSession();
    await updateSession(revoked.token, { revoked_at: clock.now().toISOString() });
    await expectRefused(bearer(revoked.token));

    const expired = await memberWithSession();
    await updateSession(expired.token, { expires_at: clock.now().toISOString() });
    await expectRefused(bearer(expired.token));
  });

  it('refuses an inactive member, a suspended Ring, a deactivated owner and a lapsed subscription', async () => {
    const inactive = await memberWithSession();
    await t.ctx.db
      .updateTable('ring_members')
      .set({ status: 'inactive' })
      .where('id', '=', inactive.member.id)
      .execute();
    await expectRefused(bearer(inactive.token));

    const suspended = await memberWithSession();
    await t.ctx.db.updateTable('rings').set({ is_active: 0 }).where('id', '=', suspended.ring.id).execute();
    await expectRefused(bearer(suspended.token));

    const ownerOff = await memberWithSession();
    await t.ctx.db
      .updateTable('customers')
      .set({ is_active: 0 })
      .where('id', '=', ownerOff.customer.id)
      .execute();
    await expectRefused(bearer(ownerOff.token));

    const lapsed = await memberWithSession();
    await t.ctx.db
      .updateTable('subscriptions')
      .set({ expires_at: clock.now().toISOString() })
      .where('customer_id', '=', lapsed.customer.id)
      .execute();
    await expectRefused(bearer(lapsed.token));
  });
});
