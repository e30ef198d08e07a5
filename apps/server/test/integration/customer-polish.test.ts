import {
  MESSAGES,
  RING_MESSAGES,
  SETTING_DEFINITIONS,
  ZAdminStatsResponse,
  ZDashboardDataResponse,
  ZInviteInfoResponse,
  ZInviteRingUserResponse,
  ZRingInfoResponse,
  ZRingLoginResponse,
  describeBilling,
} from '@securering/contract';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as honestStarter from '../../src/db/migrations/20261124-010-honest-starter-features';
import * as legalTexts from '../../src/db/migrations/20261124-011-default-legal-texts';
import { fileSharingAllowed } from '../../src/modules/ring-files/ring-files.policy';
import { buildTestApp, TEST_ADMIN, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
  customerToken,
  ringToken,
} from '../factories';

describe('issue 15: what a new customer trips over (server side)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function subscriber(extra: Parameters<typeof buildSubscription>[2] = {}) {
    const customer = await buildCustomer(t.ctx);
    await buildSubscription(t.ctx, customer.id, { planSlug: 'professional', ...extra });
    return { customer, headers: bearer(await customerToken(t.ctx, customer.id)) };
  }
  async function ownRing(headers: Record<string, string>, name = 'Équipe produit') {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/customer/rings.php',
      headers,
      payload: { name },
    });
    expect(res.statusCode).toBe(200);
    return (res.json() as { data: { id: string } }).data.id;
  }
  const enter = (headers: Record<string, string>, payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/api/customer/ring-session.php',
      headers,
      payload: payload as Record<string, unknown>,
    });

  describe('POST /api/customer/ring-session.php ("Accéder à mon Ring")', () => {
    it('opens a Ring session for the owner member of the customer’s own Ring, logged as a Ring login', async () => {
      const { customer, headers } = await subscriber();
      const ringId = await ownRing(headers);
      const res = await enter(headers, { ring_id: ringId });
      expect(res.statusCode).toBe(200);
      const session = ZRingLoginResponse.parse(res.json());
      expect(session.ring).toMatchObject({ id: ringId, name: 'Équipe produit' });
      expect(session.user.role).toBe('owner');
      expect(session.user.email).toBe(customer.email);

      // The token is a real Ring session: the room reads its Ring with it.
      const info = await t.app.inject({
        method: 'GET',
        url: '/api/rings/info.php',
        headers: bearer(session.token),
      });
      expect(info.statusCode).toBe(200);
      expect(ZRingInfoResponse.parse(info.json()).user.id).toBe(session.user.id);

      const logged = await t.ctx.db
        .selectFrom('system_logs')
        .selectAll()
        .where('message', '=', 'Connexion à un Ring')
        .where('user_id', '=', session.user.id)
        .execute();
      expect(logged).toHaveLength(1);
      expect(JSON.parse(logged[0]!.details ?? '{}')).toEqual({ ring_id: ringId, via: 'customer_space' });
    });

    it('treats another customer’s Ring as missing and issues no session', async () => {
      const { headers } = await subscriber();
      const other = await subscriber();
      const theirs = await ownRing(other.headers, 'Leur Ring');
      const sessionsBefore = await t.ctx.db
        .selectFrom('sessions')
        .select('id')
        .where('audience', '=', 'ring')
        .execute();
      const res = await enter(headers, { ring_id: theirs });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ success: false, error: RING_MESSAGES.ringNotFound });
      const sessionsAfter = await t.ctx.db
        .selectFrom('sessions')
        .select('id')
        .where('audience', '=', 'ring')
        .execute();
      expect(sessionsAfter).toHaveLength(sessionsBefore.length);
    });

    it('needs a customer session: none, or a Ring session, is refused', async () => {
      const { headers } = await subscriber();
      const ringId = await ownRing(headers);
      const anonymous = await enter({}, { ring_id: ringId });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().error).toBe(MESSAGES.notAuthenticated);
      const owner = await enter(headers, { ring_id: ringId });
      const ringBearer = bearer(ZRingLoginResponse.parse(owner.json()).token);
      expect((await enter(ringBearer, { ring_id: ringId })).statusCode).toBe(401);
    });

    it('asks for a Ring and refuses a suspended one or a lapsed subscription', async () => {
      const { headers } = await subscriber();
      const noRing = await enter(headers, {});
      expect(noRing.statusCode).toBe(400);
      expect(noRing.json().error).toBe(RING_MESSAGES.noRingSelected);

      const ringId = await ownRing(headers);
      await t.ctx.db.updateTable('rings').set({ is_active: 0 }).where('id', '=', ringId).execute();
      const suspended = await enter(headers, { ring_id: ringId });
      expect(suspended.statusCode).toBe(403);
      expect(suspended.json().error).toBe(RING_MESSAGES.ringSuspended);

      const lapsed = await buildCustomer(t.ctx);
      await buildSubscription(t.ctx, lapsed.id, {
        status: 'expired',
        expires_at: new Date(Date.now() - 86_400_000).toISOString(),
      });
      const lapsedRing = await buildRing(t.ctx, lapsed.id, { withSubscription: false });
      await buildRingMember(t.ctx, lapsedRing.id, {
        role: 'owner',
        customer_id: lapsed.id,
        password_hash: null,
      });
      const refused = await enter(bearer(await customerToken(t.ctx, lapsed.id)), { ring_id: lapsedRing.id });
      expect(refused.statusCode).toBe(403);
    });
  });

  describe('GET /api/rings/invite-info.php (prefill of the acceptance form)', () => {
    it('returns what the owner entered for an unused invitation, whatever the code’s case', async () => {
      const { headers } = await subscriber();
      const ringId = await ownRing(headers, 'Atelier');
      const invited = await t.app.inject({
        method: 'POST',
        url: '/api/customer/ring-users.php',
        headers,
        payload: { ring_id: ringId, username: 'Julie', email: 'julie@example.com' },
      });
      const code = ZInviteRingUserResponse.parse(invited.json()).data.inviteCode;
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/rings/invite-info.php?code=${code.toLowerCase()}`,
      });
      expect(res.statusCode).toBe(200);
      expect(ZInviteInfoResponse.parse(res.json()).data).toEqual({
        username: 'Julie',
        email: 'julie@example.com',
        ring_name: 'Atelier',
      });
    });

    it('answers a used code exactly like an unknown one', async () => {
      const customer = await buildCustomer(t.ctx);
      const ring = await buildRing(t.ctx, customer.id);
      const used = await buildRingMember(t.ctx, ring.id, { username: 'Déjà là', email: 'la@example.com' });
      const usedRes = await t.app.inject({
        method: 'GET',
        url: `/api/rings/invite-info.php?code=${used.invite_code}`,
      });
      const unknownRes = await t.app.inject({
        method: 'GET',
        url: '/api/rings/invite-info.php?code=ZZZZ9999',
      });
      const missingRes = await t.app.inject({ method: 'GET', url: '/api/rings/invite-info.php' });
      expect(usedRes.statusCode).toBe(404);
      expect(usedRes.json()).toEqual({ success: false, error: RING_MESSAGES.invalidInvite });
      expect(unknownRes.statusCode).toBe(404);
      expect(unknownRes.json()).toEqual(usedRes.json());
      expect(missingRes.statusCode).toBe(400);
      expect(missingRes.json()).toEqual({ success: false, error: RING_MESSAGES.invalidInvite });
    });

    it('is rate-limited per address', async () => {
      const limited = await buildTestApp({
        config: { rateLimits: { ...t.ctx.config.rateLimits, publicPerMinute: 3 } },
      });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i += 1)
          statuses.push(
            (await limited.app.inject({ method: 'GET', url: `/api/rings/invite-info.php?code=NOPE${i}` }))
              .statusCode,
          );
        expect(statuses).toEqual([404, 404, 404, 429, 429]);
      } finally {
        await limited.close();
      }
    });
  });

  describe('GET /api/customer/dashboard-data.php (what was bought and is billed)', () => {
    it('gives the plan’s option price and whether the video option was bought, for the billing label', async () => {
      const { headers } = await subscriber({ billing_cycle: 'yearly', video_enabled: 1 });
      const res = await t.app.inject({ method: 'GET', url: '/api/customer/dashboard-data.php', headers });
      const plan = ZDashboardDataResponse.parse(res.json()).data.subscription!;
      expect(plan).toMatchObject({
        price: 29.9,
        video_option: 9.9,
        video_chosen: true,
        billing_cycle: 'yearly',
      });
      const label = describeBilling({
        price: plan.price,
        videoOption: plan.video_option,
        cycle: plan.billing_cycle,
        videoChosen: plan.video_chosen,
      }).label;
      expect(label.replaceAll('\u00a0', ' ')).toBe('398,00 € / an · option vidéo incluse (+9,90 € / mois)');
    });
  });

  describe('honest plans and default legal texts', () => {
    it('seeds feature lines that say file sharing only where the server allows it', async () => {
      const plans = await t.ctx.db.selectFrom('plans').select(['slug', 'features']).execute();
      expect(plans.length).toBe(3);
      for (const plan of plans)
        expect(JSON.parse(plan.features).includes('Partage de fichiers'), plan.slug).toBe(
          fileSharingAllowed(plan.slug),
        );
    });

    it('migration 010 rewrites the starter features only while they are the seeded ones', async () => {
      const seeded = JSON.stringify([
        'Chiffrement Standard',
        'Rings: 1',
        'Chat sécurisé',
        'Appels vocaux',
        'Partage de fichiers',
        'Espace disque: 5 Go',
      ]);
      const starter = () =>
        t.ctx.db
          .selectFrom('plans')
          .select('features')
          .where('slug', '=', 'starter')
          .executeTakeFirstOrThrow();
      const honest = (await starter()).features;
      await t.ctx.db.updateTable('plans').set({ features: seeded }).where('slug', '=', 'starter').execute();
      await honestStarter.up(asMigrationDb(t.ctx.db));
      expect((await starter()).features).toBe(honest);
      expect(JSON.parse(honest)).not.toContain('Partage de fichiers');

      const edited = JSON.stringify(['Partage de fichiers', 'Texte de l’administrateur']);
      await t.ctx.db.updateTable('plans').set({ features: edited }).where('slug', '=', 'starter').execute();
      await honestStarter.up(asMigrationDb(t.ctx.db));
      expect((await starter()).features).toBe(edited);
      await t.ctx.db.updateTable('plans').set({ features: honest }).where('slug', '=', 'starter').execute();
    });

    it('seeds French models for the legal pages, and migration 011 fills only empty ones', async () => {
      const legal = () => t.ctx.settings.getCategory('legal');
      const seeded = await legal();
      for (const key of ['terms_content', 'privacy_content', 'legal_content'] as const) {
        expect(seeded[key]).toBe(SETTING_DEFINITIONS.legal[key].default);
        expect(seeded[key]).toContain('Modèle à adapter');
      }
      const set = (key: string, value: string) =>
        t.ctx.db
          .updateTable('settings')
          .set({ setting_value: value })
          .where('category', '=', 'legal')
          .where('key', '=', key)
          .execute();
      await set('terms_content', '');
      await set('privacy_content', '<p>Notre politique, écrite par l’administrateur.</p>');
      await legalTexts.up(asMigrationDb(t.ctx.db));
      const after = await legal();
      expect(after.terms_content).toBe(SETTING_DEFINITIONS.legal.terms_content.default);
      expect(after.privacy_content).toBe('<p>Notre politique, écrite par l’administrateur.</p>');
      await set('privacy_content', SETTING_DEFINITIONS.legal.privacy_content.default);
    });

    it('the public legal read serves the models', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/admin/settings.php?category=legal' });
      expect(res.json().data.legal.terms_content.setting_value).toContain('Conditions générales');
    });
  });

  describe('GET /api/admin/stats.php smtpConfigured (back-office banner)', () => {
    it('is false until an SMTP host is set', async () => {
      const admin = await t.ctx.db
        .selectFrom('admins')
        .select('id')
        .where('username', '=', TEST_ADMIN.username)
        .executeTakeFirstOrThrow();
      const headers = bearer(await adminToken(t.ctx, admin.id));
      const read = async () =>
        ZAdminStatsResponse.parse(
          (await t.app.inject({ method: 'GET', url: '/api/admin/stats.php', headers })).json(),
        ).data.smtpConfigured;
      expect(await read()).toBe(false);
      await t.ctx.settings.save('smtp', { host: 'smtp.example.com' });
      expect(await read()).toBe(true);
      await t.ctx.settings.save('smtp', { host: '' });
      expect(await read()).toBe(false);
    });
  });

  it('a Ring token is not a customer token (sanity of the fixtures used above)', async () => {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/customer/dashboard-data.php',
      headers: bearer(await ringToken(t.ctx, member.id)),
    });
    expect(res.statusCode).toBe(401);
  });
});

/** Migrations take an untyped Kysely: they must not depend on today's schema types. */
function asMigrationDb(db: unknown): Kysely<unknown> {
  return db as Kysely<unknown>;
}
