import { MESSAGES, ZRingLoginResponse } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobs } from '../../src/jobs';
import { ManualClock, MINUTE_MS } from '../../src/lib/clock';
import { hashToken } from '../../src/lib/tokens';
import { endMemberAccess } from '../../src/modules/rings/end-access';
import { STREAM_TOKENS_PER_SESSION_PER_MIN } from '../../src/modules/rings/ring-stream.routes';
import { STREAM_TOKEN_RENEWALS_PER_MINUTE } from '../../src/modules/rings/ring-stream.socket';
import { STREAM_TOKEN_TTL_MS } from '../../src/modules/sessions/session.service';
import { runSubscriptionLifecycle } from '../../src/modules/subscriptions/subscription-lifecycle.job';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
  lastMailTo,
  linkParam,
} from '../factories';
import { connectSocket, listen, type TestSocket } from '../socket-client';

/** Resolves once the socket is disconnected; rejects if that takes longer than `ms`. */
function closedWithin(socket: TestSocket, ms = 1000): Promise<void> {
  if (socket.disconnected) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`socket still connected after ${ms} ms`)), ms);
    socket.once('disconnect', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Sessions, stream tokens and sockets end together: password reset and change, Ring logout, member
 * and customer deactivation, a lapsed subscription. Stream tokens are single use, bound to the
 * Ring session that minted them, limited per session and purged once spent.
 */
describe('ending access: sessions, stream tokens and sockets', () => {
  // A fixed clock (the middle of the current minute) keeps per-minute counts in one window.
  const clock = new ManualClock(new Date(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS + 30_000));
  let t: TestApp;
  let baseUrl: string;
  let root: Record<string, string>;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    t = await buildTestApp({ clock });
    baseUrl = await listen(t.app);
    const admin = await t.ctx.admins.findByUsername('root');
    root = bearer(await adminToken(t.ctx, admin!.id));
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await t.close();
  });

  const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers });

  /** A subscribed customer owning a Ring, its owner membership and one other member. */
  async function ringWithMembers() {
    const customer = await buildCustomer(t.ctx);
    await buildSubscription(t.ctx, customer.id);
    const ring = await buildRing(t.ctx, customer.id);
    const owner = await buildRingMember(t.ctx, ring.id, {
      role: 'owner',
      customer_id: customer.id,
      email: customer.email,
      password_hash: null,
    });
    const member = await buildRingMember(t.ctx, ring.id);
    return { customer, ring, owner, member };
  }

  /** A real Ring session, through the login call. */
  async function ringSession(payload: object): Promise<string> {
    const res = await post('/api/rings/login.php', payload);
    expect(res.statusCode, res.body).toBe(200);
    return ZRingLoginResponse.parse(res.json()).token;
  }
  async function customerSession(email: string, password: string): Promise<string> {
    const res = await post('/api/auth/customer-login.php', { email, password });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().token as string;
  }
  const mint = (sessionToken: string) => post('/api/rings/mint-stream-token.php', {}, bearer(sessionToken));
  async function streamToken(sessionToken: string): Promise<string> {
    const res = await mint(sessionToken);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().stream_token as string;
  }
  async function joinedSocket(sessionToken: string, ringId: string, url = baseUrl): Promise<TestSocket> {
    const socket = await connectSocket(url, await streamToken(sessionToken));
    sockets.push(socket);
    expect(await socket.emitWithAck('join_ring', { ringId })).toEqual({ ok: true, ringId });
    return socket;
  }
  const ringInfo = (sessionToken: string) =>
    t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: bearer(sessionToken) });
  const customerStatus = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/customer-status.php', headers: bearer(token) });
  const refused = (token: string) =>
    expect(connectSocket(baseUrl, token)).rejects.toThrow(MESSAGES.sessionExpired);

  describe('password reset and change', () => {
    it('a reset ends the customer’s sessions and its Ring owner sessions, stream tokens and sockets', async () => {
      const { customer, ring, member } = await ringWithMembers();
      const customerToken = await customerSession(customer.email, customer.password);
      const ownerSession = await ringSession({ email: customer.email, password: customer.password });
      const spareStream = await streamToken(ownerSession);
      const ownerSocket = await joinedSocket(ownerSession, ring.id);
      const memberSession = await ringSession({ invite_code: member.invite_code, password: member.password });
      const memberSocket = await joinedSocket(memberSession, ring.id);

      await post('/api/auth/forgot-password.php', { email: customer.email });
      await expect
        .poll(async () => (await lastMailTo(t.ctx, customer.email))?.template_name)
        .toBe('password_reset');
      const mail = await lastMailTo(t.ctx, customer.email);
      const token = linkParam(mail!.body_text, '/reset-password', 'token');
      const reset = await post('/api/auth/reset-password.php', {
        token,
        password: 'Zebre-Violet-Nuage-42',
        confirm_password: 'Zebre-Violet-Nuage-42',
      });
      expect(reset.statusCode, reset.body).toBe(200);

      await closedWithin(ownerSocket);
      expect((await customerStatus(customerToken)).statusCode).toBe(401);
      expect((await ringInfo(ownerSession)).statusCode).toBe(401);
      await refused(spareStream);
      // The other members of the Ring are not that person: they stay.
      expect(memberSocket.connected).toBe(true);
      expect((await ringInfo(memberSession)).statusCode).toBe(200);
    });

    it('a change in the back office does the same, stream tokens included', async () => {
      const { customer, ring } = await ringWithMembers();
      const ownerSession = await ringSession({ email: customer.email, password: customer.password });
      const spareStream = await streamToken(ownerSession);
      const ownerSocket = await joinedSocket(ownerSession, ring.id);
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/admin/customers.php',
        headers: root,
        payload: { id: customer.id, password: 'Zebre-Violet-Nuage-43', password_update: true },
      });
      expect(res.statusCode, res.body).toBe(200);
      await closedWithin(ownerSocket);
      expect((await ringInfo(ownerSession)).statusCode).toBe(401);
      await refused(spareStream);
    });
  });

  describe('stream tokens', () => {
    it('open one socket only', async () => {
      const { ring, member } = await ringWithMembers();
      const session = await ringSession({ invite_code: member.invite_code, password: member.password });
      const token = await streamToken(session);
      const first = await connectSocket(baseUrl, token);
      sockets.push(first);
      expect(await first.emitWithAck('join_ring', { ringId: ring.id })).toEqual({
        ok: true,
        ringId: ring.id,
      });
      await refused(token);
      expect(first.connected).toBe(true);
    });

    it('die with the Ring session that minted them: logout closes that session’s sockets only', async () => {
      const { ring, member } = await ringWithMembers();
      const loggingOut = await ringSession({ invite_code: member.invite_code, password: member.password });
      const otherDevice = await ringSession({ invite_code: member.invite_code, password: member.password });
      const spare = await streamToken(loggingOut);
      const socket = await joinedSocket(loggingOut, ring.id);
      const otherSocket = await joinedSocket(otherDevice, ring.id);

      expect((await post('/api/rings/logout.php', {}, bearer(loggingOut))).statusCode).toBe(200);
      await closedWithin(socket);
      await refused(spare);
      expect(otherSocket.connected).toBe(true);
      expect(await otherSocket.emitWithAck('join_ring', { ringId: ring.id })).toEqual({
        ok: true,
        ringId: ring.id,
      });
    });

    it('are refused once their Ring session is revoked, even if not revoked themselves', async () => {
      const { member } = await ringWithMembers();
      const session = await ringSession({ invite_code: member.invite_code, password: member.password });
      const token = await streamToken(session);
      // Revoked some other way than logout (e.g. by a future admin action on that one session).
      await t.ctx.db
        .updateTable('sessions')
        .set({ revoked_at: clock.now().toISOString() })
        .where('audience', '=', 'ring')
        .where('subject_id', '=', member.id)
        .execute();
      await refused(token);
    });

    it('are limited per Ring session and minute, with a French 429', async () => {
      const { member } = await ringWithMembers();
      const session = await ringSession({ invite_code: member.invite_code, password: member.password });
      for (let i = 0; i < STREAM_TOKENS_PER_SESSION_PER_MIN; i++)
        expect((await mint(session)).statusCode).toBe(200);
      const over = await mint(session);
      expect(over.statusCode).toBe(429);
      expect(over.json()).toEqual({ success: false, error: MESSAGES.tooManyRequests });
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      // Another session of the same member has its own budget.
      const other = await ringSession({ invite_code: member.invite_code, password: member.password });
      expect((await mint(other)).statusCode).toBe(200);
    });

    describe('the spare one, taken over a joined socket (renew_stream_token)', () => {
      it('opens the next socket once, for the same member and Ring session', async () => {
        const { ring, member } = await ringWithMembers();
        const session = await ringSession({ invite_code: member.invite_code, password: member.password });
        const socket = await joinedSocket(session, ring.id);
        const renewed = await socket.emitWithAck('renew_stream_token', { ringId: ring.id });
        expect(renewed).toEqual({ ok: true, stream_token: expect.any(String), expires_in: 300 });
        if (!renewed.ok) throw new Error('no spare token');
        const stored = await t.ctx.db
          .selectFrom('sessions')
          .select(['audience', 'subject_id', 'parent_session_id', 'expires_at'])
          .where('token_hash', '=', hashToken(renewed.stream_token))
          .executeTakeFirstOrThrow();
        const parent = await t.ctx.db
          .selectFrom('sessions')
          .select('id')
          .where('token_hash', '=', hashToken(session))
          .executeTakeFirstOrThrow();
        expect(stored).toEqual({
          audience: 'stream',
          subject_id: member.id,
          parent_session_id: parent.id,
          expires_at: new Date(clock.now().getTime() + STREAM_TOKEN_TTL_MS).toISOString(),
        });
        socket.close();
        const next = await connectSocket(baseUrl, renewed.stream_token);
        sockets.push(next);
        expect(await next.emitWithAck('join_ring', { ringId: ring.id })).toEqual({
          ok: true,
          ringId: ring.id,
        });
        await refused(renewed.stream_token);
      });

      it('is refused before join_ring, for another Ring, with a bad payload and past 6 a minute', async () => {
        const { ring, member } = await ringWithMembers();
        const other = await ringWithMembers();
        const session = await ringSession({ invite_code: member.invite_code, password: member.password });
        const unjoined = await connectSocket(baseUrl, await streamToken(session));
        sockets.push(unjoined);
        expect(await unjoined.emitWithAck('renew_stream_token', { ringId: ring.id })).toEqual({
          ok: false,
          error: MESSAGES.forbidden,
        });
        const socket = await joinedSocket(session, ring.id);
        expect(await socket.emitWithAck('renew_stream_token', { ringId: other.ring.id })).toEqual({
          ok: false,
          error: MESSAGES.forbidden,
        });
        expect(
          await socket.emitWithAck('renew_stream_token', { ringId: 42 } as unknown as { ringId: string }),
        ).toEqual({ ok: false, error: MESSAGES.invalidRequest });
        const countTokens = async () =>
          Number(
            (
              await t.ctx.db
                .selectFrom('sessions')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('audience', '=', 'stream')
                .where('subject_id', '=', member.id)
                .executeTakeFirstOrThrow()
            ).n,
          );
        const before = await countTokens();
        for (let i = 0; i < STREAM_TOKEN_RENEWALS_PER_MINUTE; i++)
          expect(await socket.emitWithAck('renew_stream_token', { ringId: ring.id })).toMatchObject({
            ok: true,
          });
        expect(await socket.emitWithAck('renew_stream_token', { ringId: ring.id })).toEqual({
          ok: false,
          error: MESSAGES.tooManyRequests,
        });
        expect(await countTokens()).toBe(before + STREAM_TOKEN_RENEWALS_PER_MINUTE);
      });

      it('dies with its Ring session, and is refused once the member is deactivated', async () => {
        const { ring, member } = await ringWithMembers();
        const session = await ringSession({ invite_code: member.invite_code, password: member.password });
        const socket = await joinedSocket(session, ring.id);
        const first = await socket.emitWithAck('renew_stream_token', { ringId: ring.id });
        const second = await socket.emitWithAck('renew_stream_token', { ringId: ring.id });
        if (!first.ok || !second.ok) throw new Error('no spare token');
        // Deactivated without its sessions being revoked (a path that forgot to end them):
        // the handshake still refuses the spare.
        await t.ctx.db
          .updateTable('ring_members')
          .set({ status: 'inactive' })
          .where('id', '=', member.id)
          .execute();
        await refused(first.stream_token);
        await t.ctx.db
          .updateTable('ring_members')
          .set({ status: 'active' })
          .where('id', '=', member.id)
          .execute();
        expect((await post('/api/rings/logout.php', {}, bearer(session))).statusCode).toBe(200);
        await closedWithin(socket);
        await refused(second.stream_token);
      });
    });
  });

  describe('member and customer deactivation, lapsed subscription', () => {
    it('endMemberAccess (member deactivation) ends the member’s sessions, stream tokens and sockets', async () => {
      const { customer, ring, member, owner } = await ringWithMembers();
      const session = await ringSession({ invite_code: member.invite_code, password: member.password });
      const spare = await streamToken(session);
      const socket = await joinedSocket(session, ring.id);
      const ownerSocket = await joinedSocket(
        await ringSession({ invite_code: owner.invite_code, password: customer.password }),
        ring.id,
      );

      await endMemberAccess(t.ctx, member.id);
      await closedWithin(socket);
      expect((await ringInfo(session)).statusCode).toBe(401);
      await refused(spare);
      expect(ownerSocket.connected).toBe(true);
    });

    it('deactivating a customer in the back office closes the sockets of every member of its Rings', async () => {
      const { customer, ring, member } = await ringWithMembers();
      const session = await ringSession({ invite_code: member.invite_code, password: member.password });
      const socket = await joinedSocket(session, ring.id);
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/admin/customers.php',
        headers: root,
        payload: { id: customer.id, is_active: false },
      });
      expect(res.statusCode, res.body).toBe(200);
      await closedWithin(socket);
      expect((await ringInfo(session)).statusCode).toBe(401);
    });

    it('deleting a customer closes the sockets of its Rings’ members', async () => {
      const { customer, ring, member } = await ringWithMembers();
      const socket = await joinedSocket(
        await ringSession({ invite_code: member.invite_code, password: member.password }),
        ring.id,
      );
      const res = await t.app.inject({
        method: 'DELETE',
        url: '/api/admin/customers.php',
        headers: root,
        payload: { id: customer.id },
      });
      expect(res.statusCode, res.body).toBe(200);
      await closedWithin(socket);
    });

    it('a lapsed subscription closes the sockets of the Rings’ members when the lifecycle job runs', async () => {
      const { customer, ring, member } = await ringWithMembers();
      const session = await ringSession({ invite_code: member.invite_code, password: member.password });
      const socket = await joinedSocket(session, ring.id);
      // The subscription reached its end without renewal.
      await t.ctx.db
        .updateTable('subscriptions')
        .set({ expires_at: new Date(clock.now().getTime() - 1000).toISOString(), auto_renew: 0 })
        .where('customer_id', '=', customer.id)
        .execute();
      expect((await runSubscriptionLifecycle(t.ctx)).expired).toBeGreaterThanOrEqual(1);
      await closedWithin(socket);
      expect((await ringInfo(session)).statusCode).toBe(401);
    });

    it('join_ring asks the database again instead of trusting the handshake', async () => {
      const { ring, member } = await ringWithMembers();
      const session = await ringSession({ invite_code: member.invite_code, password: member.password });
      const socket = await connectSocket(baseUrl, await streamToken(session));
      sockets.push(socket);
      // Deactivated after the socket opened, without anything closing it.
      await t.ctx.db
        .updateTable('ring_members')
        .set({ status: 'inactive' })
        .where('id', '=', member.id)
        .execute();
      expect(await socket.emitWithAck('join_ring', { ringId: ring.id })).toEqual({
        ok: false,
        error: MESSAGES.sessionExpired,
      });
      await closedWithin(socket);
    });

    // Each part of the rule join_ring checks in its one query (member, Ring, owner, subscription,
    // session), changed in the database after the handshake without anything closing the socket.
    const endedAfterHandshake: Array<
      [string, (ids: { customerId: string; ringId: string; memberId: string }) => Promise<unknown>]
    > = [
      [
        'the Ring suspended',
        ({ ringId }) =>
          t.ctx.db.updateTable('rings').set({ is_active: 0 }).where('id', '=', ringId).execute(),
      ],
      [
        'its owner deactivated',
        ({ customerId }) =>
          t.ctx.db.updateTable('customers').set({ is_active: 0 }).where('id', '=', customerId).execute(),
      ],
      [
        'the subscription lapsed',
        ({ customerId }) =>
          t.ctx.db
            .updateTable('subscriptions')
            .set({ expires_at: new Date(clock.now().getTime() - 1000).toISOString() })
            .where('customer_id', '=', customerId)
            .execute(),
      ],
      [
        'the Ring session revoked',
        ({ memberId }) =>
          t.ctx.db
            .updateTable('sessions')
            .set({ revoked_at: clock.now().toISOString() })
            .where('audience', '=', 'ring')
            .where('subject_id', '=', memberId)
            .execute(),
      ],
    ];
    it.each(endedAfterHandshake)(
      'join_ring refuses the socket once %s after the handshake, and so does the next handshake',
      async (_, end) => {
        const { customer, ring, member } = await ringWithMembers();
        const session = await ringSession({ invite_code: member.invite_code, password: member.password });
        const socket = await connectSocket(baseUrl, await streamToken(session));
        sockets.push(socket);
        const spare = await streamToken(session);
        await end({ customerId: customer.id, ringId: ring.id, memberId: member.id });
        expect(await socket.emitWithAck('join_ring', { ringId: ring.id })).toEqual({
          ok: false,
          error: MESSAGES.sessionExpired,
        });
        await closedWithin(socket);
        await refused(spare);
      },
    );
  });

  it('purges spent stream tokens (used, revoked, expired) within a minute, keeping live ones', async () => {
    const job = buildJobs(t.ctx).find((j) => j.name === 'stream-token-purge');
    expect(job?.intervalMs).toBeLessThanOrEqual(MINUTE_MS);
    const { ring, member } = await ringWithMembers();
    const session = await ringSession({ invite_code: member.invite_code, password: member.password });
    await joinedSocket(session, ring.id); // one used
    await streamToken(session); // one that will expire
    const ended = await ringSession({ invite_code: member.invite_code, password: member.password });
    await streamToken(ended); // one revoked with its session
    await post('/api/rings/logout.php', {}, bearer(ended));
    clock.advance(STREAM_TOKEN_TTL_MS + 1000);
    const live = await streamToken(session);

    const streamRows = () =>
      t.ctx.db
        .selectFrom('sessions')
        .select('id')
        .where('audience', '=', 'stream')
        .where('subject_id', '=', member.id)
        .execute();
    expect(await streamRows()).toHaveLength(4);
    await job!.run();
    expect(await streamRows()).toHaveLength(1);
    // The one left still opens a socket; the Ring session itself is not touched.
    sockets.push(await connectSocket(baseUrl, live));
    expect((await ringInfo(session)).statusCode).toBe(200);
  });

  it.runIf(Boolean(process.env.TEST_REDIS_URL))(
    'closes sockets connected to another instance within a second (Redis adapter)',
    async () => {
      const second = await buildTestApp({
        clock,
        database: t.database,
        redisKeyPrefix: t.ctx.config.redisKeyPrefix,
      });
      try {
        const secondUrl = await listen(second.app);
        const { customer, ring, member } = await ringWithMembers();
        const memberSession = await ringSession({
          invite_code: member.invite_code,
          password: member.password,
        });
        const viaSecond = await joinedSocket(memberSession, ring.id, secondUrl);
        const loggingOut = await ringSession({ invite_code: member.invite_code, password: member.password });
        const logoutSocket = await joinedSocket(loggingOut, ring.id, secondUrl);

        // Logout handled by the first instance, socket on the second.
        await post('/api/rings/logout.php', {}, bearer(loggingOut));
        await closedWithin(logoutSocket);
        expect(viaSecond.connected).toBe(true);

        // Customer deactivated through the first instance.
        await t.app.inject({
          method: 'PUT',
          url: '/api/admin/customers.php',
          headers: root,
          payload: { id: customer.id, is_active: false },
        });
        await closedWithin(viaSecond);
      } finally {
        await second.app.close();
      }
    },
  );
});
