import {
  RING_CLOSE_GRACE_SEC,
  RING_LAST_TAB_REASON,
  RING_MESSAGES,
  ZCreateRingResponse,
  ZDashboardDataResponse,
  ZInviteRingUserResponse,
  ZRingDetailResponse,
  ZRingInfoResponse,
  ZRingLoginResponse,
  ZRingLoginSelection,
  ZRingUsersResponse,
  ZResendRingInvitationResponse,
  RING_USER_API_PATHS,
  isInvitationExpired,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  bearer,
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
  customerToken,
  lastMailTo,
  mailsTo,
  ringToken,
} from '../factories';
import { connectSocket, listen, type TestSocket } from '../socket-client';

describe('customer Rings, invitations and the way into a Ring', () => {
  let t: TestApp;
  let baseUrl: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await t.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  async function subscriber(planSlug = 'professional', extra: Parameters<typeof buildSubscription>[2] = {}) {
    const customer = await buildCustomer(t.ctx);
    await buildSubscription(t.ctx, customer.id, { planSlug, ...extra });
    return { customer, headers: bearer(await customerToken(t.ctx, customer.id)) };
  }
  async function createRing(headers: Record<string, string>, name = 'Équipe produit') {
    const res = await call('POST', '/api/customer/rings.php', headers, { name });
    expect(res.statusCode).toBe(200);
    return ZCreateRingResponse.parse(res.json()).data.id;
  }
  async function invite(headers: Record<string, string>, ringId: string, username: string, email?: string) {
    const res = await call('POST', '/api/customer/ring-users.php', headers, {
      ring_id: ringId,
      username,
      ...(email ? { email } : {}),
    });
    return res;
  }
  async function join(code: string, username: string, password = 'Membre-123', email?: string) {
    return t.app.inject({
      method: 'POST',
      url: '/api/rings/accept-invite.php',
      payload: { invite_code: code, username, password, ...(email ? { email } : {}) },
    });
  }

  describe('Ring creation and plan limits', () => {
    it('requires an active subscription and a name', async () => {
      const customer = await buildCustomer(t.ctx);
      const headers = bearer(await customerToken(t.ctx, customer.id));
      const noSub = await call('POST', '/api/customer/rings.php', headers, { name: 'X' });
      expect(noSub.statusCode).toBe(403);
      expect(noSub.json().error).toBe(RING_MESSAGES.subscriptionRequired);
      const { headers: subscribed } = await subscriber();
      const noName = await call('POST', '/api/customer/rings.php', subscribed, { name: '  ' });
      expect(noName.json()).toEqual({ success: false, error: 'Nom du ring requis' });
    });

    it('creates the Ring with plan defaults and the customer as its owner member', async () => {
      const { customer, headers } = await subscriber('professional');
      const ringId = await createRing(headers);
      const detail = ZRingDetailResponse.parse(
        (await call('GET', `/api/customer/rings.php?ring_id=${ringId}`, headers)).json(),
      ).data;
      expect(detail).toMatchObject({
        name: 'Équipe produit',
        plan: 'professional',
        encryptionLevel: 'standard',
        autoDestroyDelay: 300,
        maxFileSize: 10,
        allowVideo: false,
      });
      expect(detail.screenProtection).toEqual({
        level: 'standard',
        enableDevToolsProtection: true,
        enableVisibilityProtection: true,
        enableExperimentalFeatures: false,
        enableScreenRecordingDetection: false,
      });
      expect(detail.storageBytes.allocated).toBe(50 * 1024 ** 3);
      const users = (await call('GET', `/api/customer/ring-users.php?ring_id=${ringId}`, headers)).json()
        .data;
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({
        role: 'owner',
        status: 'active',
        email: customer.email,
        isUsed: true,
      });
      const list = (await call('GET', '/api/customer/rings.php', headers)).json().data;
      expect(list.map((r: { id: string }) => r.id)).toEqual([ringId]);
    });

    it('refuses a Ring beyond the plan limit', async () => {
      const { headers } = await subscriber('starter');
      await createRing(headers, 'Premier');
      const second = await call('POST', '/api/customer/rings.php', headers, { name: 'Second' });
      expect(second.statusCode).toBe(403);
      expect(second.json().error).toBe('Limite de rings atteinte');
    });

    it('enforces the plan on settings: encryption levels, ephemeral messages, video', async () => {
      const starter = await subscriber('starter');
      const ringId = await createRing(starter.headers);
      const put = (payload: object, headers = starter.headers) =>
        call('PUT', '/api/customer/rings.php', headers, { ring_id: ringId, ...payload });
      expect((await put({ encryption_level: 'military' })).json().error).toBe(
        RING_MESSAGES.encryptionNotInPlan,
      );
      expect((await put({ ephemeral_messages: true })).json().error).toBe(RING_MESSAGES.ephemeralNotInPlan);
      expect((await put({ allow_video: true })).json().error).toBe(RING_MESSAGES.videoNotInPlan);
      expect((await put({ encryption_level: 'basic' })).statusCode).toBe(200);
      expect((await put({ encryption_level: 'nope' })).statusCode).toBe(400);

      const enterprise = await subscriber('enterprise');
      const bigRing = await createRing(enterprise.headers);
      const ok = await call('PUT', '/api/customer/rings.php', enterprise.headers, {
        ring_id: bigRing,
        encryption_level: 'military',
        ephemeral_messages: true,
        allow_video: true,
      });
      expect(ok.json().data).toMatchObject({
        encryptionLevel: 'military',
        ephemeralMessages: true,
        allowVideo: true,
      });
    });

    it('enforces the plan on voice and on the maximum file size too', async () => {
      // A plan without voice calls and with 1 GiB of storage.
      const starter = await t.ctx.db
        .selectFrom('plans')
        .selectAll()
        .where('slug', '=', 'starter')
        .executeTakeFirstOrThrow();
      await t.ctx.db
        .insertInto('plans')
        .values({
          ...starter,
          id: newId(),
          slug: 'sans-voix',
          name: 'Sans voix',
          features_voice: 0,
          storage_bytes: 1024 ** 3,
        })
        .execute();
      const { headers } = await subscriber('sans-voix');
      const ringId = await createRing(headers);
      const put = (payload: object) =>
        call('PUT', '/api/customer/rings.php', headers, { ring_id: ringId, ...payload });
      const before = ZRingDetailResponse.parse(
        (await call('GET', `/api/customer/rings.php?ring_id=${ringId}`, headers)).json(),
      ).data;
      expect(before.allowVoice).toBe(false);

      const voice = await put({ allow_voice: true });
      expect(voice.statusCode).toBe(400);
      expect(voice.json().error).toBe(RING_MESSAGES.voiceNotInPlan);
      const tooBig = await put({ max_file_size: 1025 });
      expect(tooBig.statusCode).toBe(400);
      expect(tooBig.json().error).toBe(RING_MESSAGES.maxFileSizeOverPlan(1024));
      const after = ZRingDetailResponse.parse(
        (await call('GET', `/api/customer/rings.php?ring_id=${ringId}`, headers)).json(),
      ).data;
      expect(after).toMatchObject({ allowVoice: false, maxFileSize: before.maxFileSize });

      expect((await put({ allow_voice: false, max_file_size: 1024 })).json().data).toMatchObject({
        allowVoice: false,
        maxFileSize: 1024,
      });
    });

    it('normalises the auto-destroy delay and the protection switches', async () => {
      const { headers } = await subscriber('professional');
      const ringId = await createRing(headers);
      const put = async (payload: object) =>
        ZRingDetailResponse.parse(
          (await call('PUT', '/api/customer/rings.php', headers, { ring_id: ringId, ...payload })).json(),
        ).data;
      expect((await put({ auto_destroy_delay: 5 })).autoDestroyDelay).toBe(10);
      expect((await put({ auto_destroy_delay: 999999 })).autoDestroyDelay).toBe(86400);
      expect((await put({ auto_destroy_delay: 'abc' })).autoDestroyDelay).toBe(300);
      expect(
        (
          await put({
            screen_protection_level: 'maximum',
            screen_experimental_features: false,
            screen_recording_detection: true,
          })
        ).screenProtection,
      ).toMatchObject({ level: 'maximum', enableScreenRecordingDetection: false });
      expect(
        (await put({ screen_protection_level: 'disabled', screen_devtools_protection: true }))
          .screenProtection,
      ).toEqual({
        level: 'disabled',
        enableDevToolsProtection: false,
        enableVisibilityProtection: false,
        enableExperimentalFeatures: false,
        enableScreenRecordingDetection: false,
      });
      const bad = await call('PUT', '/api/customer/rings.php', headers, {
        ring_id: ringId,
        max_file_size: 0,
      });
      expect(bad.statusCode).toBe(400);
    });
  });

  describe('isolation between customers', () => {
    it('answers 404 for every action on another customer’s Ring or user', async () => {
      const owner = await subscriber();
      const ringId = await createRing(owner.headers);
      const invited = ZInviteRingUserResponse.parse(
        (await invite(owner.headers, ringId, 'alice')).json(),
      ).data;
      const intruder = await subscriber();
      expect(
        (await call('GET', `/api/customer/rings.php?ring_id=${ringId}`, intruder.headers)).statusCode,
      ).toBe(404);
      expect(
        (await call('PUT', '/api/customer/rings.php', intruder.headers, { ring_id: ringId, name: 'Volé' }))
          .statusCode,
      ).toBe(404);
      expect(
        (await call('GET', `/api/customer/ring-users.php?ring_id=${ringId}`, intruder.headers)).statusCode,
      ).toBe(404);
      expect((await invite(intruder.headers, ringId, 'mallory')).statusCode).toBe(404);
      expect(
        (await call('DELETE', '/api/customer/ring-users.php', intruder.headers, { user_id: invited.id }))
          .statusCode,
      ).toBe(404);
      expect((await call('GET', '/api/customer/rings.php', intruder.headers)).json().data).toEqual([]);
      const dashboard = ZDashboardDataResponse.parse(
        (await call('GET', `/api/customer/dashboard-data.php?ring_id=${ringId}`, intruder.headers)).json(),
      );
      expect(dashboard.data.ring).toBeNull();
    });
  });

  describe('invitations', () => {
    it('validates, refuses duplicates, mails the invite link and gives each user an unguessable code', async () => {
      const { headers } = await subscriber();
      const ringId = await createRing(headers, 'Direction');
      expect((await invite(headers, ringId, '')).json().error).toBe('Veuillez entrer un nom d’utilisateur');
      expect(
        (await call('POST', '/api/customer/ring-users.php', headers, { username: 'x' })).json().error,
      ).toBe('Aucun ring sélectionné');
      expect((await invite(headers, ringId, 'bob', 'pas-un-email')).json().error).toBe('Email invalide');

      const res = ZInviteRingUserResponse.parse(
        (await invite(headers, ringId, 'Bob', 'Bob@Example.com')).json(),
      );
      expect(res.message).toBe(RING_MESSAGES.invitationSent);
      expect(res.data).toMatchObject({
        username: 'Bob',
        email: 'bob@example.com',
        status: 'invited',
        isUsed: false,
        role: 'member',
      });
      expect(res.data.inviteCode).toMatch(/^[A-HJ-NP-Z2-9]{16}$/);
      expect(res.invite_url).toBe(`http://127.0.0.1:9999/ring-access?invite=${res.data.inviteCode}`);
      const mail = await lastMailTo(t.ctx, 'bob@example.com');
      expect(mail?.subject).toBe('Invitation à rejoindre le Ring Direction');
      expect(mail?.body_text).toContain(res.invite_url);

      const dup = await invite(headers, ringId, 'bob');
      expect(dup.statusCode).toBe(409);
      expect(dup.json().error).toBe(RING_MESSAGES.usernameTaken);
      const other = ZInviteRingUserResponse.parse((await invite(headers, ringId, 'carol')).json());
      expect(other.message).toBe(RING_MESSAGES.invitationCreated);
      expect(other.data.inviteCode).not.toBe(res.data.inviteCode);
    });

    it('stops at the plan’s user limit', async () => {
      const { headers } = await subscriber('starter');
      const ringId = await createRing(headers);
      for (let i = 1; i <= 10; i++) expect((await invite(headers, ringId, `user${i}`)).statusCode).toBe(200);
      const over = await invite(headers, ringId, 'user11');
      expect(over.statusCode).toBe(403);
      expect(over.json().error).toBe('Votre plan limite à 10 utilisateurs');
    });

    it('removes an invitation only while it is unused, and never the owner', async () => {
      const { headers } = await subscriber();
      const ringId = await createRing(headers);
      const unused = ZInviteRingUserResponse.parse((await invite(headers, ringId, 'temp')).json()).data;
      const used = ZInviteRingUserResponse.parse((await invite(headers, ringId, 'dave')).json()).data;
      expect((await join(used.inviteCode, 'dave')).statusCode).toBe(200);
      const users = (await call('GET', `/api/customer/ring-users.php?ring_id=${ringId}`, headers)).json()
        .data as Array<{ id: string; role: string }>;
      const owner = users.find((u) => u.role === 'owner')!;

      expect(
        (await call('DELETE', '/api/customer/ring-users.php', headers, { user_id: used.id })).json().error,
      ).toBe(RING_MESSAGES.cannotRemoveUsed);
      expect(
        (await call('DELETE', '/api/customer/ring-users.php', headers, { user_id: owner.id })).statusCode,
      ).toBe(403);
      const removed = await call('DELETE', '/api/customer/ring-users.php', headers, { user_id: unused.id });
      expect(removed.json()).toEqual({ success: true, message: 'Utilisateur supprimé' });
      expect((await join(unused.inviteCode, 'temp')).statusCode).toBe(400);
    });
  });

  describe('accepting an invitation and logging in to a Ring', () => {
    it('checks the fields, accepts once, and opens a Ring session', async () => {
      const { headers } = await subscriber();
      const ringId = await createRing(headers, 'Studio');
      const code = ZInviteRingUserResponse.parse((await invite(headers, ringId, 'eve')).json()).data
        .inviteCode;
      expect((await join('', 'eve')).json().error).toBe('Remplissez le code, nom et mot de passe.');
      expect((await join(code, 'eve', 'court')).json().error).toBe(RING_MESSAGES.passwordTooShort);
      expect((await join('INCONNU000000000', 'eve')).json().error).toBe(RING_MESSAGES.invalidInvite);

      const res = ZRingLoginResponse.parse(
        (await join(code.toLowerCase(), 'Ève', 'Membre-123', 'Eve@Example.com')).json(),
      );
      expect(res.user).toMatchObject({
        username: 'Ève',
        email: 'eve@example.com',
        role: 'member',
        inviteCode: code,
      });
      expect(res.ring).toEqual({ id: ringId, name: 'Studio', plan: 'professional' });
      expect((await join(code, 'eve2')).json().error).toBe(RING_MESSAGES.invalidInvite);

      const info = ZRingInfoResponse.parse(
        (
          await t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: bearer(res.token) })
        ).json(),
      );
      expect(info.ring).toMatchObject({
        id: ringId,
        name: 'Studio',
        storage: '0,00 Go utilisés sur 50,00 Go',
        capabilities: { voice: true, video: false },
      });
      expect(info.users.map((u) => [u.role, u.isCurrentUser])).toEqual(
        expect.arrayContaining([
          ['owner', false],
          ['member', true],
        ]),
      );
      // A Ring token is worthless for customer calls.
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/customer/rings.php', headers: bearer(res.token) }))
          .statusCode,
      ).toBe(401);
    });

    it('logs in by invite code and by email, asking which Ring when the email is in several', async () => {
      const a = await subscriber();
      const b = await subscriber();
      const ringA = await createRing(a.headers, 'Alpha');
      const ringB = await createRing(b.headers, 'Bêta');
      const codeA = ZInviteRingUserResponse.parse(
        (await invite(a.headers, ringA, 'frank', 'frank@example.com')).json(),
      ).data.inviteCode;
      const codeB = ZInviteRingUserResponse.parse(
        (await invite(b.headers, ringB, 'frank', 'frank@example.com')).json(),
      ).data.inviteCode;
      await join(codeA, 'frank', 'Frank-Pass-1');
      await join(codeB, 'frank', 'Frank-Pass-1');
      const login = (payload: object) =>
        t.app.inject({ method: 'POST', url: '/api/rings/login.php', payload });

      expect(
        ZRingLoginResponse.parse((await login({ invite_code: codeA, password: 'Frank-Pass-1' })).json()).ring
          .name,
      ).toBe('Alpha');
      expect((await login({ invite_code: codeA, password: 'wrong-pass' })).json()).toEqual({
        success: false,
        error: 'Identifiants incorrects',
      });
      expect((await login({ email: 'frank@example.com' })).json().error).toBe(
        'Veuillez remplir tous les champs',
      );

      const selection = ZRingLoginSelection.parse(
        (await login({ email: 'FRANK@example.com', password: 'Frank-Pass-1' })).json(),
      );
      expect(selection.rings.map((r) => `${r.name} (${r.role})`).sort()).toEqual([
        'Alpha (member)',
        'Bêta (member)',
      ]);
      const chosen = ZRingLoginResponse.parse(
        (await login({ email: 'frank@example.com', password: 'Frank-Pass-1', ring_id: ringB })).json(),
      );
      expect(chosen.ring.name).toBe('Bêta');
      expect((await login({ email: 'frank@example.com', password: 'nope-nope' })).statusCode).toBe(401);
    });

    it('lets the owner in with its account email and password', async () => {
      const { customer, headers } = await subscriber();
      const ringId = await createRing(headers, 'Maison');
      const res = ZRingLoginResponse.parse(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/rings/login.php',
            payload: { email: customer.email, password: customer.password },
          })
        ).json(),
      );
      expect(res).toMatchObject({ ring: { id: ringId }, user: { role: 'owner' } });
    });

    it('suspends the Ring when the owner’s subscription ends', async () => {
      const { customer, headers } = await subscriber();
      const ringId = await createRing(headers);
      const code = ZInviteRingUserResponse.parse((await invite(headers, ringId, 'gina')).json()).data
        .inviteCode;
      const token = ZRingLoginResponse.parse((await join(code, 'gina')).json()).token;
      await t.ctx.db
        .updateTable('subscriptions')
        .set({ status: 'expired' })
        .where('customer_id', '=', customer.id)
        .execute();
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: bearer(token) }))
          .statusCode,
      ).toBe(401);
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/rings/login.php',
        payload: { invite_code: code, password: 'Membre-123' },
      });
      expect(login.statusCode).toBe(403);
      expect(login.json().error).toBe(RING_MESSAGES.ringSuspended);
    });

    it('ends the session on logout, but only marks the member offline on page unload', async () => {
      const { headers } = await subscriber();
      const ringId = await createRing(headers);
      const code = ZInviteRingUserResponse.parse((await invite(headers, ringId, 'hugo')).json()).data
        .inviteCode;
      const token = ZRingLoginResponse.parse((await join(code, 'hugo')).json()).token;
      const info = () => t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: bearer(token) });
      await t.app.inject({
        method: 'POST',
        url: '/api/rings/logout.php',
        headers: bearer(token),
        payload: { reason: 'unload' },
      });
      expect((await info()).statusCode).toBe(200);
      await t.app.inject({ method: 'POST', url: '/api/rings/logout.php', headers: bearer(token) });
      expect((await info()).statusCode).toBe(401);
    });
  });

  describe('live settings and presence', () => {
    it('pushes a settings change to the Ring’s connected members and reports who is online', async () => {
      const { headers } = await subscriber('enterprise');
      const ringId = await createRing(headers, 'Temps réel');
      const code = ZInviteRingUserResponse.parse((await invite(headers, ringId, 'iris')).json()).data
        .inviteCode;
      const session = ZRingLoginResponse.parse((await join(code, 'iris')).json());
      const minted = await t.app.inject({
        method: 'POST',
        url: '/api/rings/mint-stream-token.php',
        headers: bearer(session.token),
      });
      const socket = await connectSocket(baseUrl, minted.json().stream_token);
      sockets.push(socket);
      const states: unknown[] = [];
      socket.on('presence_state', (s) => states.push(s));
      expect(await socket.emitWithAck('join_ring', { ringId })).toEqual({ ok: true, ringId });
      await expect.poll(() => states.length).toBe(1);
      expect(states[0]).toEqual({ ringId, online: [session.user.id], inCall: [] });

      const info = ZRingInfoResponse.parse(
        (
          await t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: bearer(session.token) })
        ).json(),
      );
      expect(info.users.find((u) => u.id === session.user.id)).toMatchObject({
        isOnline: true,
        status: 'online',
      });

      const updates: Array<{ updated: Record<string, unknown> }> = [];
      socket.on('ring_settings_updated', (e) => updates.push(e));
      await call('PUT', '/api/customer/rings.php', headers, {
        ring_id: ringId,
        screen_protection_level: 'maximum',
        screen_experimental_features: true,
        ephemeral_messages: true,
      });
      await expect.poll(() => updates.length).toBe(1);
      expect(updates[0]!.updated).toMatchObject({
        screen_protection_level: 'maximum',
        ephemeral_messages: true,
      });

      socket.close();
      await expect
        .poll(
          async () =>
            (
              await t.ctx.db
                .selectFrom('ring_members')
                .select('last_seen_at')
                .where('id', '=', session.user.id)
                .executeTakeFirstOrThrow()
            ).last_seen_at,
        )
        .not.toBeNull();
    });
  });

  describe('dashboard data', () => {
    it('shows the plan with its limits and usage, and stays active but not renewing after cancel', async () => {
      const { headers } = await subscriber('professional', { auto_renew: 1, provider: 'test' });
      const ringId = await createRing(headers);
      await invite(headers, ringId, 'jules');
      let data = ZDashboardDataResponse.parse(
        (await call('GET', '/api/customer/dashboard-data.php', headers)).json(),
      ).data;
      expect(data.subscription).toMatchObject({
        plan: 'Professional',
        maxUsers: 50,
        maxRings: 3,
        currentUsers: 1,
        ringsOwned: 1,
        status: 'active',
        auto_renew: true,
        priority_support: true,
        disk_space: 50,
      });
      expect(data.subscription!.nextBilling).toBe(data.subscription!.expires_at);
      expect(data.ring?.id).toBe(ringId);
      expect(data.ringUsers.map((u) => u.username)).toContain('jules');

      expect((await call('POST', '/api/subscriptions/cancel.php', headers)).statusCode).toBe(200);
      data = ZDashboardDataResponse.parse(
        (await call('GET', '/api/customer/dashboard-data.php', headers)).json(),
      ).data;
      expect(data.subscription).toMatchObject({ status: 'active', auto_renew: false, nextBilling: null });
    });
  });

  it('uses the token of each audience for its own calls only', async () => {
    const { customer, headers } = await subscriber();
    const ringId = await createRing(headers);
    const owner = (await call('GET', `/api/customer/ring-users.php?ring_id=${ringId}`, headers)).json()
      .data[0];
    const rToken = await ringToken(t.ctx, owner.id);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/customer/dashboard-data.php',
          headers: bearer(rToken),
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/rings/info.php',
          headers: bearer(await customerToken(t.ctx, customer.id)),
        })
      ).statusCode,
    ).toBe(401);
  });
});

describe('a Ring session when the browser’s last Ring tab closes (issue 25)', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-29T09:00:00.000Z');

  beforeAll(async () => {
    t = await buildTestApp({ clock });
  });
  afterAll(() => t.close());

  async function memberSession() {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id);
    const token = await ringToken(t.ctx, member.id);
    const info = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: bearer(token) })).statusCode;
    const lastTabClosed = async () =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/rings/logout.php',
          headers: bearer(token),
          payload: { reason: RING_LAST_TAB_REASON },
        })
      ).statusCode;
    return { token, info, lastTabClosed };
  }

  it('ends the session once the grace has passed without a request', async () => {
    const { token, info, lastTabClosed } = await memberSession();
    expect(await lastTabClosed()).toBe(200);
    clock.advance((RING_CLOSE_GRACE_SEC + 1) * 1000);
    expect(await info()).toBe(401);
    const mint = await t.app.inject({
      method: 'POST',
      url: '/api/rings/mint-stream-token.php',
      headers: bearer(token),
    });
    expect(mint.statusCode).toBe(401);
  });

  it('keeps the session for its 7 days when a request of it comes within the grace (a reload)', async () => {
    const { info, lastTabClosed } = await memberSession();
    expect(await lastTabClosed()).toBe(200);
    clock.advance((RING_CLOSE_GRACE_SEC - 2) * 1000);
    expect(await info()).toBe(200);
    clock.advance(6 * 24 * 3600_000);
    expect(await info()).toBe(200);
    // Closing the last tab again starts a new grace.
    expect(await lastTabClosed()).toBe(200);
    clock.advance((RING_CLOSE_GRACE_SEC + 1) * 1000);
    expect(await info()).toBe(401);
  });

  it('needs the Ring session’s bearer, like the logout it is', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rings/logout.php',
      payload: { reason: RING_LAST_TAB_REASON },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('pending invitations expire, are sent again, and their use is told to the owner (issue 27)', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-29T09:00:00.000Z');
  const DAY = 86_400_000;

  beforeAll(async () => {
    // INVITATION_TTL_DAYS=2 (the default is 7).
    t = await buildTestApp({ clock, config: { invitationTtlMs: 2 * DAY } });
  });
  afterAll(() => t.close());

  async function owner() {
    const customer = await buildCustomer(t.ctx, { first_name: 'Odile' });
    await buildSubscription(t.ctx, customer.id);
    const headers = async () => bearer(await customerToken(t.ctx, customer.id));
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/customer/rings.php',
      headers: await headers(),
      payload: { name: 'Atelier' },
    });
    const ringId = ZCreateRingResponse.parse(created.json()).data.id;
    return { customer, headers, ringId };
  }
  const inviteGina = async (headers: Record<string, string>, ringId: string, email = 'gina@example.com') =>
    ZInviteRingUserResponse.parse(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/customer/ring-users.php',
          headers,
          payload: { ring_id: ringId, username: 'gina', email },
        })
      ).json(),
    ).data;
  const accept = (code: string, username = 'gina') =>
    t.app.inject({
      method: 'POST',
      url: '/api/rings/accept-invite.php',
      payload: { invite_code: code, username, password: 'Membre-123' },
    });
  const info = (code: string) =>
    t.app.inject({ method: 'GET', url: `/api/rings/invite-info.php?code=${code}` });
  const resend = async (headers: Record<string, string>, userId: string) =>
    t.app.inject({
      method: 'POST',
      url: RING_USER_API_PATHS.resendInvitation,
      headers,
      payload: { user_id: userId },
    });
  const usersOf = async (headers: Record<string, string>, ringId: string) =>
    ZRingUsersResponse.parse(
      (
        await t.app.inject({ method: 'GET', url: `/api/customer/ring-users.php?ring_id=${ringId}`, headers })
      ).json(),
    ).data;

  it('an invitation expires after INVITATION_TTL_DAYS: its code no longer opens the Ring', async () => {
    const { headers, ringId } = await owner();
    const gina = await inviteGina(await headers(), ringId);
    expect(gina.inviteExpiresAt).toBe('2026-12-01T09:00:00.000Z');
    expect(isInvitationExpired(gina, clock.now().getTime())).toBe(false);
    expect((await info(gina.inviteCode)).statusCode).toBe(200);

    clock.advance(2 * DAY);
    const expiredInfo = await info(gina.inviteCode);
    expect(expiredInfo.statusCode).toBe(410);
    expect(expiredInfo.json()).toEqual({ success: false, error: RING_MESSAGES.invitationExpired });
    const refused = await accept(gina.inviteCode);
    expect(refused.statusCode).toBe(410);
    expect(refused.json()).toEqual({ success: false, error: RING_MESSAGES.invitationExpired });

    // The owner's list says so (« Invitation expirée »), and nothing changed.
    const listed = (await usersOf(await headers(), ringId)).find((u) => u.id === gina.id)!;
    expect(listed).toMatchObject({ status: 'invited', isUsed: false, inviteCode: gina.inviteCode });
    expect(isInvitationExpired(listed, clock.now().getTime())).toBe(true);
  });

  it('« Renvoyer » renews the expiry and mails the invitation again, for the owner of a pending one only', async () => {
    const { headers, ringId } = await owner();
    const gina = await inviteGina(await headers(), ringId, 'gina.renvoi@example.com');
    clock.advance(3 * DAY);
    expect((await accept(gina.inviteCode)).statusCode).toBe(410);

    // Another customer, a missing id: the invitation does not exist for them.
    const stranger = await owner();
    const foreign = await resend(await stranger.headers(), gina.id);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ success: false, error: RING_MESSAGES.userNotFound });
    const missing = await resend(await headers(), '');
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ success: false, error: RING_MESSAGES.userNotFound });

    const res = await resend(await headers(), gina.id);
    expect(res.statusCode).toBe(200);
    const body = ZResendRingInvitationResponse.parse(res.json());
    expect(body.message).toBe(RING_MESSAGES.invitationResent);
    expect(body.data).toMatchObject({ id: gina.id, inviteCode: gina.inviteCode, status: 'invited' });
    expect(body.data.inviteExpiresAt).toBe(new Date(clock.now().getTime() + 2 * DAY).toISOString());
    expect(body.invite_url).toBe(`http://127.0.0.1:9999/ring-access?invite=${gina.inviteCode}`);
    const mails = await mailsTo(t.ctx, 'gina.renvoi@example.com');
    expect(mails.filter((m) => m.subject === 'Invitation à rejoindre le Ring Atelier')).toHaveLength(2);

    expect((await accept(gina.inviteCode)).statusCode).toBe(200);
    const used = await resend(await headers(), gina.id);
    expect(used.statusCode).toBe(409);
    expect(used.json()).toEqual({ success: false, error: RING_MESSAGES.cannotResendUsed });
  });

  it('accepting an invitation mails the Ring’s owner', async () => {
    const { customer, headers, ringId } = await owner();
    const gina = await inviteGina(await headers(), ringId);
    expect(await lastMailTo(t.ctx, customer.email)).toBeUndefined();
    expect((await accept(gina.inviteCode, 'Gina')).statusCode).toBe(200);
    const mail = await lastMailTo(t.ctx, customer.email);
    expect(mail?.subject).toBe('Gina a rejoint votre Ring Atelier');
    expect(mail?.body_text).toContain('Bonjour Odile,');
    expect(mail?.body_text).toContain('Gina a accepté son invitation et rejoint votre Ring Atelier');
    expect(mail?.body_text).toContain('http://127.0.0.1:9999/client');
  });
});
