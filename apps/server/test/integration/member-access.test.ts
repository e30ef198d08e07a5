import {
  MEMBER_ACCESS_API_PATHS,
  MEMBER_ACCESS_MESSAGES,
  MESSAGES,
  RING_MESSAGES,
  type TAccessSuspended,
  type TMemberSuspended,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR_MS, ManualClock, MINUTE_MS } from '../../src/lib/clock';
import { hashToken } from '../../src/lib/tokens';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  bearer,
  buildCustomer,
  buildRing,
  buildRingMember,
  customerToken,
  lastMailTo,
  linkParam,
  mailsTo,
} from '../factories';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

const LOGIN = '/api/rings/login.php';
const USERS = '/api/customer/ring-users.php';

/**
 * Issue 28, « Deactivation, logout, expiry »: a deactivated member is told why (live and at login,
 * only once its password matched), and members reset a forgotten password by email with the
 * customers' rules (neutral answer, hashed single-use token, one hour).
 */
describe('a Ring member’s access: suspension and forgotten password', () => {
  let t: TestApp;
  let baseUrl: string;
  const clock = new ManualClock('2026-11-30T09:00:00.000Z');
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    t = await buildTestApp({
      clock,
      config: { rateLimits: { loginFailures: 3, loginWindowMs: 15 * MINUTE_MS, publicPerMinute: 1000 } },
    });
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
  });

  /** The owner (`owner`: its bearer header) turns a member's access off or on. */
  const setMemberStatus = (owner: Record<string, string>, memberId: string, status: 'active' | 'inactive') =>
    t.app.inject({ method: 'PATCH', url: USERS, headers: owner, payload: { user_id: memberId, status } });

  // Forgot finishes its work after answering: wait for it before looking at mails.
  const post = async (url: string, payload: object, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({ method: 'POST', url, payload, headers });
    await t.ctx.deferred.idle();
    return res;
  };

  async function memberOfNewRing(overrides: { email?: string; password?: string } = {}) {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id, {
      email: overrides.email ?? `membre_${Math.random().toString(36).slice(2)}@example.com`,
      ...(overrides.password ? { password: overrides.password } : {}),
    });
    return { customer, ring, member };
  }

  describe('suspension', () => {
    it('tells a deactivated member its access is suspended, but only after its password matched', async () => {
      const { customer, member } = await memberOfNewRing();
      const owner = bearer(await customerToken(t.ctx, customer.id));
      const off = await setMemberStatus(owner, member.id, 'inactive');
      expect(off.statusCode, off.body).toBe(200);

      // A guesser learns nothing: a wrong password reads as for any unknown account.
      const guessed = await post(LOGIN, { email: member.email, password: 'Pas-le-bon-1' });
      expect(guessed.statusCode).toBe(401);
      expect(guessed.json().error).toBe(RING_MESSAGES.invalidCredentials);
      const byCodeGuess = await post(LOGIN, { invite_code: member.invite_code, password: 'Pas-le-bon-1' });
      expect(byCodeGuess.json().error).toBe(RING_MESSAGES.invalidCredentials);

      // The member with its right password learns why, by email and by invite code; no session.
      for (const payload of [
        { email: member.email, password: member.password },
        { invite_code: member.invite_code, password: member.password },
      ]) {
        const res = await post(LOGIN, payload);
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json()).toMatchObject({ success: false, error: MEMBER_ACCESS_MESSAGES.accessSuspended });
        expect(res.json().token).toBeUndefined();
      }

      // Reactivated: it signs in again.
      const on = await setMemberStatus(owner, member.id, 'active');
      expect(on.statusCode, on.body).toBe(200);
      const back = await post(LOGIN, { email: member.email, password: member.password });
      expect(back.statusCode, back.body).toBe(200);
      expect(back.json().token).toEqual(expect.any(String));
    });

    it('an address active in one Ring and deactivated in another signs in to the active one', async () => {
      const email = `double_${Math.random().toString(36).slice(2)}@example.com`;
      const first = await memberOfNewRing({ email });
      const second = await memberOfNewRing({ email });
      const owner = bearer(await customerToken(t.ctx, second.customer.id));
      await setMemberStatus(owner, second.member.id, 'inactive');
      const res = await post(LOGIN, { email, password: first.member.password });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().ring.id).toBe(first.ring.id);
    });

    it('the deactivated member’s open page is told why before its socket closes; the others see it leave', async () => {
      const ring = await ringWithMembers(t, 2);
      const [alice, carol] = ring.members as [(typeof ring.members)[0], (typeof ring.members)[0]];
      const aliceSocket = await joinedSocket(t, baseUrl, alice);
      const carolSocket = await joinedSocket(t, baseUrl, carol);
      sockets.push(aliceSocket.socket, carolSocket.socket);
      const owner = bearer(await customerToken(t.ctx, ring.customerId));
      const res = await setMemberStatus(owner, carol.memberId, 'inactive');
      expect(res.statusCode, res.body).toBe(200);
      await expect
        .poll(() => carolSocket.events.find((e) => e.name === 'access_suspended')?.payload)
        .toEqual({ ringId: ring.ringId } satisfies TAccessSuspended);
      await expect.poll(() => carolSocket.socket.disconnected).toBe(true);
      await expect
        .poll(
          () =>
            aliceSocket.events.find((e) => e.name === 'member_suspended')?.payload as
              TMemberSuspended | undefined,
        )
        .toMatchObject({ ringId: ring.ringId, userId: carol.memberId });
      // Only the member itself is told « suspendu »: Alice got no access_suspended.
      expect(aliceSocket.events.some((e) => e.name === 'access_suspended')).toBe(false);
    });
  });

  describe('forgotten password', () => {
    it('answers the same for a member, an unknown address and a deactivated member; mails only the member', async () => {
      const { member } = await memberOfNewRing();
      const known = await post(MEMBER_ACCESS_API_PATHS.forgotPassword, {
        email: member.email!.toUpperCase(),
      });
      const unknown = await post(MEMBER_ACCESS_API_PATHS.forgotPassword, {
        email: 'fantome.membre@example.com',
      });
      expect(known.statusCode).toBe(200);
      expect(known.json()).toEqual({ success: true, message: MEMBER_ACCESS_MESSAGES.forgotNeutral });
      expect(unknown.json()).toEqual(known.json());
      expect(await mailsTo(t.ctx, 'fantome.membre@example.com')).toHaveLength(0);
      const mail = await lastMailTo(t.ctx, member.email!);
      expect(mail?.template_name).toBe('ring_password_reset');
      // Only the hash of the link's token is stored.
      const token = linkParam(mail!.body_text, '/ring-access', 'reset');
      const rows = await t.ctx.db
        .selectFrom('ring_member_tokens')
        .selectAll()
        .where('member_id', '=', member.id)
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.token_hash).toBe(hashToken(token));
      expect(JSON.stringify(rows)).not.toContain(token);

      const { customer, member: gone } = await memberOfNewRing();
      await setMemberStatus(bearer(await customerToken(t.ctx, customer.id)), gone.id, 'inactive');
      const suspended = await post(MEMBER_ACCESS_API_PATHS.forgotPassword, { email: gone.email });
      expect(suspended.json()).toEqual(known.json());
      expect(await mailsTo(t.ctx, gone.email!)).toHaveLength(0);
    });

    it('sets a new password once, ends the member’s sessions, and leaves its keys alone', async () => {
      // A member with published E2EE keys (sealed under its passphrase) and an email.
      const ring = await ringWithMembers(t, 1);
      const keyed = ring.members[0]!;
      expect((await keyed.publish()).statusCode).toBe(200);
      const email = `cles_${Math.random().toString(36).slice(2)}@example.com`;
      await t.ctx.db.updateTable('ring_members').set({ email }).where('id', '=', keyed.memberId).execute();
      const member = { email, password: 'Member-Password-1' };
      const session = bearer(keyed.token);
      const keysBefore = await t.ctx.db
        .selectFrom('member_keys')
        .selectAll()
        .where('member_id', '=', keyed.memberId)
        .execute();
      expect(keysBefore).toHaveLength(1);

      await post(MEMBER_ACCESS_API_PATHS.forgotPassword, { email: member.email });
      const token = linkParam((await lastMailTo(t.ctx, member.email!))!.body_text, '/ring-access', 'reset');

      const weak = await post(MEMBER_ACCESS_API_PATHS.resetPassword, { token, password: 'court' });
      expect(weak.statusCode).toBe(400);
      expect(weak.json().error).toBe(MEMBER_ACCESS_MESSAGES.passwordTooShort);
      const forged = await post(MEMBER_ACCESS_API_PATHS.resetPassword, {
        token: `${token}x`,
        password: 'Nouveau-Membre-9',
      });
      expect(forged.json().error).toBe(MEMBER_ACCESS_MESSAGES.resetLinkInvalid);

      const ok = await post(MEMBER_ACCESS_API_PATHS.resetPassword, { token, password: 'Nouveau-Membre-9' });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toEqual({ success: true, message: MEMBER_ACCESS_MESSAGES.passwordReset });
      const again = await post(MEMBER_ACCESS_API_PATHS.resetPassword, { token, password: 'Encore-Membre-9' });
      expect(again.statusCode).toBe(400);
      expect(again.json().error).toBe(MEMBER_ACCESS_MESSAGES.resetLinkInvalid);

      const info = await t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: session });
      expect(info.statusCode).toBe(401);
      expect(info.json().error).toBe(MESSAGES.sessionExpired);
      expect((await post(LOGIN, { email: member.email, password: member.password })).statusCode).toBe(401);
      expect((await post(LOGIN, { email: member.email, password: 'Nouveau-Membre-9' })).statusCode).toBe(200);
      // The E2EE keys (sealed under the passphrase, not the password) are exactly as before.
      expect(
        await t.ctx.db
          .selectFrom('member_keys')
          .selectAll()
          .where('member_id', '=', keyed.memberId)
          .execute(),
      ).toEqual(keysBefore);
    });

    it('expires the link after one hour', async () => {
      const { member } = await memberOfNewRing();
      await post(MEMBER_ACCESS_API_PATHS.forgotPassword, { email: member.email });
      const token = linkParam((await lastMailTo(t.ctx, member.email!))!.body_text, '/ring-access', 'reset');
      clock.advance(HOUR_MS + MINUTE_MS);
      const res = await post(MEMBER_ACCESS_API_PATHS.resetPassword, { token, password: 'Nouveau-Membre-9' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(MEMBER_ACCESS_MESSAGES.resetLinkInvalid);
      expect((await post(LOGIN, { email: member.email, password: member.password })).statusCode).toBe(200);
    });

    it('the owner is not reset here (it resets its customer account), and mails are capped per hour', async () => {
      const customer = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, customer.id);
      await buildRingMember(t.ctx, ring.id, {
        role: 'owner',
        customer_id: customer.id,
        email: customer.email,
      });
      await post(MEMBER_ACCESS_API_PATHS.forgotPassword, { email: customer.email });
      expect(await mailsTo(t.ctx, customer.email)).toHaveLength(0);

      const { member } = await memberOfNewRing();
      for (let i = 0; i < 7; i++) await post(MEMBER_ACCESS_API_PATHS.forgotPassword, { email: member.email });
      expect(await mailsTo(t.ctx, member.email!)).toHaveLength(5);
    });
  });
});
