import {
  ADMIN_PLAN_MESSAGES,
  PLAN_GIB,
  PLAN_TIB,
  ZAdminPlansResponse,
  ZPlansResponse,
  ZSaveAdminPlanResponse,
  type TAdminPlan,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN, buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin, buildCustomer, buildSubscription } from '../factories';

describe('admin plans', () => {
  let t: TestApp;
  let root: Record<string, string>;
  let viewer: Record<string, string>;
  let editor: Record<string, string>;
  let outsider: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp();
    const rootId = (await t.ctx.admins.findByUsername(TEST_ADMIN.username))!.id;
    root = bearer(await adminToken(t.ctx, rootId));
    const v = await buildAdmin(t.ctx, { permissions: [['plans', 'view']] });
    viewer = bearer(await adminToken(t.ctx, v.id));
    const e = await buildAdmin(t.ctx, {
      permissions: [
        ['plans', 'view'],
        ['plans', 'create'],
        ['plans', 'edit'],
        ['plans', 'delete'],
      ],
    });
    editor = bearer(await adminToken(t.ctx, e.id));
    const o = await buildAdmin(t.ctx, { permissions: [['transactions', 'view']] });
    outsider = bearer(await adminToken(t.ctx, o.id));
  });
  afterAll(() => t.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  const listPlans = async (headers = root): Promise<TAdminPlan[]> =>
    ZAdminPlansResponse.parse((await call('GET', '/api/admin/plans.php', headers)).json()).data;

  const planRow = (id: string) =>
    t.ctx.db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('lists every plan in the admin form on both paths, for admins holding plans:view only', async () => {
    const viaPhp = await call('GET', '/api/admin/plans.php', viewer);
    const viaPlain = await call('GET', '/api/admin/plans', viewer);
    expect(viaPhp.statusCode).toBe(200);
    expect(viaPlain.json()).toEqual(viaPhp.json());
    const plans = ZAdminPlansResponse.parse(viaPhp.json()).data;
    expect(plans.map((p) => p.slug)).toEqual(['starter', 'professional', 'enterprise']);
    expect(plans[1]).toMatchObject({
      name: 'Professional',
      price: 29.9,
      video_option: 9.9,
      max_users: 50,
      max_rings: 3,
      storage_gb: 50,
      storage_bytes: 50 * PLAN_GIB,
      popular: true,
      active: true,
      is_active: true,
      encryption_levels: ['basic', 'standard', 'high'],
      ephemeral_allowed: true,
      support_level: 'priority',
      subscribers_count: 0,
    });
    expect(plans[2]!.max_users).toBe(-1);

    expect((await call('GET', '/api/admin/plans.php', {})).statusCode).toBe(401);
    expect((await call('GET', '/api/admin/plans', {})).json().error).toBe('Non authentifié');
    expect((await call('GET', '/api/admin/plans.php', outsider)).statusCode).toBe(403);
    expect((await call('GET', '/api/admin/plans.php', { authorization: 'Bearer nope' })).statusCode).toBe(
      401,
    );
  });

  it('refuses every write to a view-only admin and to admins without the module, changing nothing', async () => {
    const before = await listPlans();
    const starter = before[0]!;
    for (const headers of [viewer, outsider, {}]) {
      const created = await call('POST', '/api/admin/plans.php', headers, { name: 'Intrus' });
      expect([401, 403]).toContain(created.statusCode);
      const edited = await call('PUT', '/api/admin/plans.php', headers, { id: starter.id, price: 1 });
      expect([401, 403]).toContain(edited.statusCode);
      const deleted = await call('DELETE', `/api/admin/plans.php?id=${starter.id}`, headers);
      expect([401, 403]).toContain(deleted.statusCode);
    }
    const forbidden = await call('PUT', '/api/admin/plans.php', viewer, { id: starter.id, price: 1 });
    expect(forbidden.json()).toMatchObject({
      success: false,
      error: 'Vous n’avez pas les droits pour modifier ce paramètre',
    });
    expect(forbidden.json().message).toBe(forbidden.json().error);
    // A POST carrying an id is an edit: the create right alone is not enough.
    const creatorOnly = await buildAdmin(t.ctx, { permissions: [['plans', 'create']] });
    const creator = bearer(await adminToken(t.ctx, creatorOnly.id));
    expect(
      (await call('POST', '/api/admin/plans.php', creator, { id: starter.id, price: 1 })).statusCode,
    ).toBe(403);
    expect(await listPlans()).toEqual(before);
  });

  it('creates a plan with the defaults: price 0, 1 user, 1 Ring, video 0, 1 Go, active, not popular', async () => {
    const res = await call('POST', '/api/admin/plans.php', editor, { name: '  Équipe Découverte ' });
    expect(res.statusCode).toBe(200);
    const body = ZSaveAdminPlanResponse.parse(res.json());
    expect(body.message).toBe('Plan créé');
    expect(body.data).toMatchObject({
      name: 'Équipe Découverte',
      slug: 'equipe-decouverte',
      price: 0,
      video_option: 0,
      max_users: 1,
      max_rings: 1,
      storage_bytes: PLAN_GIB,
      storage_gb: 1,
      popular: false,
      active: true,
      features: ['Chiffrement Standard', 'Rings: 1', 'Chat sécurisé', 'Appels vocaux', 'Espace disque: 1 Go'],
      sort_order: 4,
    });
    // Same name again: a unique slug.
    const again = ZSaveAdminPlanResponse.parse(
      (await call('POST', '/api/admin/plans.php', root, { name: 'Équipe découverte' })).json(),
    );
    expect(again.data.slug).toBe('equipe-decouverte-2');
    const log = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('category', '=', 'admin')
      .where('message', '=', 'Plan créé')
      .execute();
    expect(log.length).toBe(2);
    expect(log.some((l) => (l.details ?? '').includes(body.data.id))).toBe(true);
  });

  it('stores prices as cents and storage as bytes, normalises and syncs the feature lines', async () => {
    const res = await call('POST', '/api/admin/plans.php', editor, {
      name: 'Business',
      price: '49,90',
      video_option: '4.5',
      max_users: '',
      max_rings: '5',
      storage: '1,5 To',
      encryption_levels: ['military', 'basic'],
      features: [
        '  Support prioritaire ',
        'Zèbre',
        '',
        'Écran partagé',
        'Messages éphémères',
        'Rings: 2',
        'Chat sécurisé',
        'Chat sécurisé',
        'Audit logs',
        'Visioconférence',
      ],
      popular: true,
    });
    expect(res.statusCode).toBe(200);
    const plan = ZSaveAdminPlanResponse.parse(res.json()).data;
    expect(plan).toMatchObject({
      price: 49.9,
      video_option: 4.5,
      max_users: -1,
      max_rings: 5,
      storage_bytes: 1.5 * PLAN_TIB,
      storage_gb: 1536,
      popular: true,
      ephemeral_allowed: true,
      support_level: 'priority',
      encryption_levels: ['basic', 'military'],
      features_chat: true,
      features_voice: false,
      features_video: true,
    });
    expect(plan.features).toEqual([
      'Chiffrement Militaire',
      'Rings: 5',
      'Chat sécurisé',
      'Messages éphémères',
      'Visioconférence',
      'Espace disque: 1,5 To',
      'Audit logs',
      'Support prioritaire',
      'Écran partagé',
      'Zèbre',
    ]);
    const row = await planRow(plan.id);
    expect(row).toMatchObject({
      price_cents: 4990,
      video_option_cents: 450,
      storage_bytes: 1.5 * PLAN_TIB,
      ephemeral_allowed: 1,
    });
    expect(JSON.parse(row.features)).toEqual(plan.features);

    // Edit: the lines follow the new values; removing the ephemeral line turns the option off.
    const edited = await call('PUT', '/api/admin/plans.php', editor, {
      id: plan.id,
      max_rings: '',
      storage_bytes: 2 * PLAN_TIB,
      features: plan.features.filter((f) => f !== 'Messages éphémères' && f !== 'Support prioritaire'),
    });
    expect(edited.statusCode).toBe(200);
    const after = ZSaveAdminPlanResponse.parse(edited.json());
    expect(after.message).toBe('Plan enregistré');
    expect(after.data.features).toContain('Rings: Illimités');
    expect(after.data.features).toContain('Espace disque: 2 To');
    expect(after.data).toMatchObject({
      ephemeral_allowed: false,
      support_level: 'email',
      max_rings: -1,
      price: 49.9,
    });

    // storage_gb alone, from an older client.
    const gb = await call('PUT', '/api/admin/plans.php', editor, { id: plan.id, storage_gb: 20 });
    expect(ZSaveAdminPlanResponse.parse(gb.json()).data).toMatchObject({
      storage_bytes: 20 * PLAN_GIB,
      storage_gb: 20,
    });
  });

  it('keeps a dedicated support level with the priority support line', async () => {
    const enterprise = (await listPlans()).find((p) => p.slug === 'enterprise')!;
    const res = await call('PUT', '/api/admin/plans.php', editor, {
      id: enterprise.id,
      features: enterprise.features,
    });
    expect(ZSaveAdminPlanResponse.parse(res.json()).data).toMatchObject({
      support_level: 'dedicated',
      features: enterprise.features,
    });
  });

  it('answers validation errors in error and message, changing nothing', async () => {
    const before = await listPlans();
    const starter = before[0]!;
    const cases: Array<[object, string]> = [
      [{ name: '   ' }, 'Nom du plan requis'],
      [{ name: 'x'.repeat(101) }, 'Nom du plan\u202f: 100 caractères maximum'],
      [{ name: 'Cher', price: 'dix euros' }, 'Prix invalide (nombre positif, ex. 9,90)'],
      [{ name: 'Négatif', price: -5 }, 'Prix invalide (nombre positif, ex. 9,90)'],
      [{ name: 'Vidéo', video_option: '1,234' }, 'Option vidéo invalide (nombre positif, ex. 4,90)'],
      [{ name: 'Disque', storage: 'beaucoup' }, 'Espace disque invalide'],
      [{ name: 'Disque', storage: '5 XB' }, 'Espace disque invalide'],
      [{ name: 'Disque', storage_gb: 'abc' }, 'Espace disque invalide'],
      [{ name: 'Chiffre', encryption_levels: [] }, 'Sélectionnez au moins un niveau de chiffrement'],
      [{ name: 'Chiffre', encryption_levels: ['quantum'] }, 'Niveau de chiffrement inconnu'],
      [{ name: 'Long', features: ['x'.repeat(201)] }, 'Chaque fonctionnalité\u202f: 200 caractères maximum'],
      [{ name: 'Foule', max_users: 10_000_000 }, 'Nombre d’utilisateurs invalide'],
    ];
    for (const [payload, message] of cases) {
      const res = await call('POST', '/api/admin/plans.php', editor, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toEqual({ success: false, error: message, message });
    }
    const edit = await call('PUT', '/api/admin/plans.php', editor, { id: starter.id, storage: '-3 Go' });
    expect(edit.json()).toMatchObject({ error: 'Espace disque invalide', message: 'Espace disque invalide' });
    const noId = await call('PUT', '/api/admin/plans.php', editor, { price: 3 });
    expect(noId.json()).toMatchObject({
      error: ADMIN_PLAN_MESSAGES.idRequired,
      message: ADMIN_PLAN_MESSAGES.idRequired,
    });
    const unknown = await call('PUT', '/api/admin/plans.php', editor, { id: 'nope', price: 3 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('Plan introuvable');
    const garbage = await t.app.inject({
      method: 'POST',
      url: '/api/admin/plans.php',
      headers: { ...editor, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(garbage.statusCode).toBe(400);
    expect(await listPlans()).toEqual(before);
  });

  it('toggles active and popular alone; the public list shows active plans only', async () => {
    const starter = (await listPlans()).find((p) => p.slug === 'starter')!;
    const off = await call('PUT', '/api/admin/plans.php', editor, { id: starter.id, active: false });
    expect(ZSaveAdminPlanResponse.parse(off.json()).data).toMatchObject({
      active: false,
      is_active: false,
      features: starter.features,
      price: starter.price,
    });
    let pub = ZPlansResponse.parse((await call('GET', '/api/subscriptions/plans.php', {})).json()).data;
    expect(pub.map((p) => p.slug)).not.toContain('starter');
    expect((await listPlans()).map((p) => p.slug)).toContain('starter');

    const popular = await call('PUT', '/api/admin/plans.php', editor, { id: starter.id, popular: '1' });
    expect(ZSaveAdminPlanResponse.parse(popular.json()).data).toMatchObject({ popular: true, active: false });

    await call('PUT', '/api/admin/plans.php', editor, { id: starter.id, is_active: 1 });
    pub = ZPlansResponse.parse((await call('GET', '/api/subscriptions/plans.php', {})).json()).data;
    expect(pub.find((p) => p.slug === 'starter')).toMatchObject({ active: true, popular: true });

    const modified = await t.ctx.db
      .selectFrom('system_logs')
      .select('details')
      .where('message', '=', 'Plan modifié')
      .where('details', 'like', `%${starter.id}%`)
      .execute();
    expect(modified.length).toBe(3);
  });

  it('refuses to delete a plan used by a subscription, deletes an unused one', async () => {
    const professional = (await listPlans()).find((p) => p.slug === 'professional')!;
    const customer = await buildCustomer(t.ctx);
    await buildSubscription(t.ctx, customer.id, { planSlug: 'professional' });
    expect((await listPlans()).find((p) => p.id === professional.id)).toMatchObject({
      subscribers_count: 1,
      subscriptions_count: 1,
    });
    const refused = await call('DELETE', `/api/admin/plans.php?id=${professional.id}`, editor);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      success: false,
      error: 'Ce plan est utilisé par des abonnements\u202f: désactivez-le plutôt',
      message: 'Ce plan est utilisé par des abonnements\u202f: désactivez-le plutôt',
    });
    expect(await planRow(professional.id)).toBeTruthy();

    // An expired subscription still references the plan.
    const oldCustomer = await buildCustomer(t.ctx);
    const created = ZSaveAdminPlanResponse.parse(
      (await call('POST', '/api/admin/plans.php', editor, { name: 'Éphémère' })).json(),
    ).data;
    await t.ctx.db.updateTable('plans').set({ slug: 'ephemere-test' }).where('id', '=', created.id).execute();
    await buildSubscription(t.ctx, oldCustomer.id, { planSlug: 'ephemere-test', status: 'expired' });
    expect((await call('DELETE', `/api/admin/plans.php?id=${created.id}`, root)).statusCode).toBe(409);

    const unused = ZSaveAdminPlanResponse.parse(
      (await call('POST', '/api/admin/plans.php', editor, { name: 'Jetable' })).json(),
    ).data;
    const gone = await call('DELETE', `/api/admin/plans.php?id=${unused.id}`, editor);
    expect(gone.json()).toEqual({ success: true, message: 'Plan supprimé' });
    expect((await listPlans()).map((p) => p.id)).not.toContain(unused.id);
    const again = await call('DELETE', `/api/admin/plans.php?id=${unused.id}`, editor);
    expect(again.statusCode).toBe(404);
    const missing = await call('DELETE', '/api/admin/plans.php', editor);
    expect(missing.json()).toMatchObject({
      error: ADMIN_PLAN_MESSAGES.idRequired,
      message: ADMIN_PLAN_MESSAGES.idRequired,
    });
    const audit = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', 'Plan supprimé')
      .execute();
    expect(audit.length).toBe(1);
  });
});

describe('admin plans order (issue 25)', () => {
  let t: TestApp;
  let root: Record<string, string>;
  let viewer: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp();
    const rootId = (await t.ctx.admins.findByUsername(TEST_ADMIN.username))!.id;
    root = bearer(await adminToken(t.ctx, rootId));
    const v = await buildAdmin(t.ctx, { permissions: [['plans', 'view']] });
    viewer = bearer(await adminToken(t.ctx, v.id));
  });
  afterAll(() => t.close());

  const order = (headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/admin/plans-order.php', headers, payload });
  const publicSlugs = async () =>
    ZPlansResponse.parse(
      (await t.app.inject({ method: 'GET', url: '/api/subscriptions/plans.php' })).json(),
    ).data.map((p) => p.slug);

  it('orders the plans; the admin and public lists follow; bad orders and view-only admins change nothing', async () => {
    const plans = ZAdminPlansResponse.parse(
      (await t.app.inject({ method: 'GET', url: '/api/admin/plans.php', headers: root })).json(),
    ).data;
    const bySlug = new Map(plans.map((p) => [p.slug, p.id]));
    const ids = ['enterprise', 'starter', 'professional'].map((slug) => bySlug.get(slug)!);

    const denied = await order(viewer, { ids });
    expect(denied.statusCode).toBe(403);
    for (const bad of [
      { ids: ids.slice(0, 2) },
      { ids: [ids[0], ids[0], ids[1]] },
      { ids: [ids[0], ids[1], 'not-a-plan'] },
      { ids: [] },
    ]) {
      const res = await order(root, bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(ADMIN_PLAN_MESSAGES.orderInvalid);
    }
    expect(await publicSlugs()).toEqual(['starter', 'professional', 'enterprise']);

    const res = await order(root, { ids });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe(ADMIN_PLAN_MESSAGES.ordered);
    expect(res.json().data.map((p: TAdminPlan) => p.slug)).toEqual(['enterprise', 'starter', 'professional']);
    expect(await publicSlugs()).toEqual(['enterprise', 'starter', 'professional']);
    // The popular flag stays with its plan, wherever it now stands.
    const pub = ZPlansResponse.parse(
      (await t.app.inject({ method: 'GET', url: '/api/subscriptions/plans.php' })).json(),
    ).data;
    expect(pub.filter((p) => p.popular).map((p) => p.slug)).toEqual(['professional']);
  });
});
