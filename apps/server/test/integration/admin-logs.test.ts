import {
  LOG_MESSAGES,
  MESSAGES,
  ZAdminLogsResponse,
  ZDeleteLogsResponse,
  ZToggleLoggingResponse,
  type TAdminLogsResponse,
} from '@securering/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, ManualClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import type { SystemLogsTable } from '../../src/db/schema';
import { buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin } from '../factories';

describe('admin logs API', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T10:00:00.000Z');
  let rootId: string;
  let superToken: string;
  let viewToken: string;
  let editToken: string;
  let deleteToken: string;
  let otherModuleToken: string;

  beforeAll(async () => {
    t = await buildTestApp({ clock });
    const root = await t.ctx.admins.findByUsername('root');
    rootId = root!.id;
    superToken = await adminToken(t.ctx, rootId);
    const viewer = await buildAdmin(t.ctx, { permissions: [['system_logs', 'view']] });
    viewToken = await adminToken(t.ctx, viewer.id);
    const editor = await buildAdmin(t.ctx, {
      permissions: [
        ['system_logs', 'view'],
        ['system_logs', 'edit'],
      ],
    });
    editToken = await adminToken(t.ctx, editor.id);
    const deleter = await buildAdmin(t.ctx, {
      permissions: [
        ['system_logs', 'view'],
        ['system_logs', 'delete'],
      ],
    });
    deleteToken = await adminToken(t.ctx, deleter.id);
    const other = await buildAdmin(t.ctx, { permissions: [['plans', 'view']] });
    otherModuleToken = await adminToken(t.ctx, other.id);
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    await t.ctx.db.deleteFrom('system_logs').execute();
    await t.ctx.settings.save('system', { logging_enabled: '1' });
  });

  const list = (query = '', token = superToken) =>
    t.app.inject({ method: 'GET', url: `/api/admin/logs.php${query}`, headers: bearer(token) });
  const page = async (query = '', token = superToken): Promise<TAdminLogsResponse> => {
    const res = await list(query, token);
    expect(res.statusCode).toBe(200);
    return ZAdminLogsResponse.parse(res.json());
  };
  const post = (payload: Record<string, unknown>, token = superToken) =>
    t.app.inject({ method: 'POST', url: '/api/admin/logs.php', headers: bearer(token), payload });

  let seq = 0;
  const insert = async (overrides: Partial<SystemLogsTable> = {}) => {
    seq += 1;
    const row: SystemLogsTable = {
      id: newId(),
      level: 'info',
      category: 'system',
      message: `Entrée ${seq}`,
      details: null,
      ip_address: '203.0.113.7',
      user_agent: 'vitest',
      user_id: null,
      created_at: clock.now().toISOString(),
      ...overrides,
    };
    await t.ctx.db.insertInto('system_logs').values(row).execute();
    return row;
  };
  const allRows = () => t.ctx.db.selectFrom('system_logs').selectAll().execute();

  it('requires a token, the module, and the right permission per action', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/admin/logs.php' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
    const anonymousPost = await t.app.inject({
      method: 'POST',
      url: '/api/admin/logs.php',
      payload: { action: 'clear_logs', category: 'all' },
    });
    expect(anonymousPost.statusCode).toBe(401);

    expect((await list('', otherModuleToken)).statusCode).toBe(403);
    expect((await post({ action: 'explode' }, otherModuleToken)).statusCode).toBe(403);
    expect((await post({ action: 'clear_logs', category: 'all' }, otherModuleToken)).statusCode).toBe(403);
    expect((await list('', viewToken)).statusCode).toBe(200);
    // A name inherited from Object.prototype is an unknown action like any other.
    for (const action of ['constructor', 'toString', '__proto__']) {
      const res = await post({ action }, viewToken);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(LOG_MESSAGES.unknownAction);
    }

    await insert();
    for (const payload of [
      { action: 'toggle_logging', enabled: false },
      { action: 'clear_logs', category: 'all' },
      { action: 'purge_old', days: 1 },
    ]) {
      const res = await post(payload, viewToken);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(MESSAGES.noEditRight);
    }
    // edit may switch logging but not delete; delete may delete but not switch.
    expect((await post({ action: 'clear_logs', category: 'all' }, editToken)).statusCode).toBe(403);
    expect((await post({ action: 'toggle_logging', enabled: true }, deleteToken)).statusCode).toBe(403);
    expect(await allRows()).toHaveLength(1);
    expect((await post({ action: 'toggle_logging', enabled: true }, editToken)).statusCode).toBe(200);
    expect((await post({ action: 'clear_logs', category: 'system' }, deleteToken)).statusCode).toBe(200);
  });

  it('pages 120 entries by 50, newest first, with the total', async () => {
    const start = clock.now().getTime();
    for (let i = 0; i < 120; i++) {
      await insert({ message: `Entrée n°${i}`, created_at: new Date(start + i * 1000).toISOString() });
    }
    const first = await page();
    expect(first.total).toBe(120);
    expect(first.logs).toHaveLength(50);
    expect(first.logs[0]!.message).toBe('Entrée n°119');
    expect(first.logs[49]!.message).toBe('Entrée n°70');
    const second = await page('?limit=50&offset=50');
    expect(second.logs.map((l) => l.message)).toEqual(
      Array.from({ length: 50 }, (_, i) => `Entrée n°${69 - i}`),
    );
    const last = await page('?offset=100');
    expect(last.logs).toHaveLength(20);
    expect(last.logs[19]!.message).toBe('Entrée n°0');
    expect(last.total).toBe(120);
    expect((await page('?limit=200')).logs).toHaveLength(120);

    for (const bad of ['?limit=201', '?limit=0', '?limit=abc', '?offset=-1']) {
      const res = await list(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/invalide/);
    }
  });

  it('filters by category, level, technical requests and search text', async () => {
    await insert({ category: 'auth', level: 'warning', message: 'Échec de connexion administrateur' });
    await insert({ category: 'payment', level: 'error', message: 'Paiement refusé : 100% de la somme' });
    await insert({ category: 'api', level: 'info', message: 'Requête GET /api/settings.php' });
    await insert({ category: 'api', level: 'info', message: 'Requête terminée GET /api/settings.php' });
    await insert({ category: 'api', level: 'error', message: 'Échec d’une requête authentifiée' });

    expect((await page()).total).toBe(5);
    const api = await page('?category=api');
    expect(api.total).toBe(3);
    expect(api.logs.every((l) => l.category === 'api')).toBe(true);
    expect((await page('?category=all')).total).toBe(5);
    const errors = await page('?level=error');
    expect(errors.logs.map((l) => l.category).sort()).toEqual(['api', 'payment']);
    expect((await page('?category=api&level=error')).total).toBe(1);

    const hidden = await page('?hide_technical=1');
    expect(hidden.total).toBe(3);
    expect(hidden.logs.some((l) => l.message.startsWith('Requête '))).toBe(false);
    expect((await page('?category=api&hide_technical=1')).logs.map((l) => l.message)).toEqual([
      'Échec d’une requête authentifiée',
    ]);

    const search = await page(`?search=${encodeURIComponent('settings.PHP')}`);
    expect(search.total).toBe(2);
    // LIKE wildcards in the search are taken literally.
    expect((await page(`?search=${encodeURIComponent('100%')}`)).total).toBe(1);
    expect((await page(`?search=${encodeURIComponent('%')}`)).total).toBe(1);
    expect((await page(`?search=${encodeURIComponent('_')}`)).total).toBe(0);

    expect((await list('?category=nope')).json().error).toBe(LOG_MESSAGES.unknownCategory);
    expect((await list('?level=debug')).json().error).toBe(LOG_MESSAGES.unknownLevel);
  });

  it('searches accented text ignoring case on every database', async () => {
    await insert({ category: 'auth', level: 'warning', message: 'Échec de connexion client' });
    await insert({ category: 'payment', level: 'error', message: 'Paiement : échec du prélèvement' });
    await insert({ category: 'auth', level: 'info', message: 'Connexion client' });

    // SQLite's lower() leaves "É" as is: a capital accented term must still find both entries.
    const found = await page(`?search=${encodeURIComponent('Échec')}`);
    expect(found.total).toBe(2);
    expect(found.logs.map((l) => l.message).sort()).toEqual([
      'Paiement : échec du prélèvement',
      'Échec de connexion client',
    ]);
  });

  it('returns parsed details, the IP, the user agent and who the user is', async () => {
    await insert({
      details: JSON.stringify({ url: '/api/x', status: 500 }),
      user_id: rootId,
      message: 'Avec détails',
    });
    await insert({ details: 'texte brut {pas du json', message: 'Texte' });
    const { logs } = await page();
    const withDetails = logs.find((l) => l.message === 'Avec détails')!;
    expect(withDetails.details).toEqual({ url: '/api/x', status: 500 });
    expect(withDetails).toMatchObject({
      ip_address: '203.0.113.7',
      user_agent: 'vitest',
      user_id: rootId,
      user_label: 'root',
    });
    const text = logs.find((l) => l.message === 'Texte')!;
    expect(text.details).toBe('texte brut {pas du json');
    expect(text.user_label).toBeNull();
  });

  it('clears one category, then everything, and audits after the deletion', async () => {
    await insert({ category: 'auth' });
    await insert({ category: 'auth', level: 'error' });
    await insert({ category: 'payment' });
    await insert({ category: 'email' });

    const filtered = await post({ action: 'clear_logs', category: 'auth' });
    expect(filtered.statusCode).toBe(200);
    expect(ZDeleteLogsResponse.parse(filtered.json())).toMatchObject({
      deleted: 2,
      message: '2 entrées supprimées',
    });
    let rows = await allRows();
    expect(rows.filter((r) => r.category === 'auth')).toHaveLength(0);
    expect(rows.filter((r) => r.category === 'payment' || r.category === 'email')).toHaveLength(2);
    const audit = rows.find((r) => r.category === 'admin')!;
    expect(audit).toMatchObject({ message: 'Logs supprimés', user_id: rootId, level: 'info' });
    expect(JSON.parse(audit.details!)).toMatchObject({ category: 'auth', deleted: 2 });

    // Level narrows "clear filtered".
    await insert({ category: 'email', level: 'error' });
    const byLevel = await post({ action: 'clear_logs', category: 'email', level: 'error' });
    expect(byLevel.json()).toMatchObject({ deleted: 1, message: '1 entrée supprimée' });
    expect((await allRows()).filter((r) => r.category === 'email')).toHaveLength(1);

    const all = await post({ action: 'clear_logs', category: 'all' });
    // payment, email and the two audit lines written so far.
    expect(all.json()).toMatchObject({ success: true, deleted: 4, message: '4 entrées supprimées' });
    rows = await allRows();
    // Only the audit line of this deletion remains.
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ category: 'admin', message: 'Logs supprimés', user_id: rootId });
    expect(JSON.parse(rows[0]!.details!)).toMatchObject({ category: 'all', deleted: 4 });

    for (const payload of [
      { action: 'clear_logs' },
      { action: 'clear_logs', category: 'inconnue' },
      { action: 'clear_logs', category: 'all', level: 'grave' },
      { action: 'explode' },
      {},
    ]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().success).toBe(false);
    }
    expect((await post({ action: 'explode' })).json().error).toBe(LOG_MESSAGES.unknownAction);
    expect((await post({ action: 'clear_logs' })).json().error).toBe(LOG_MESSAGES.categoryRequired);
    expect(await allRows()).toHaveLength(1);
  });

  it('purges entries older than 30 days, keeping one exactly 30 days old', async () => {
    const now = clock.now().getTime();
    await insert({ message: 'vieux', created_at: new Date(now - 31 * DAY_MS).toISOString() });
    await insert({ message: 'limite', created_at: new Date(now - 30 * DAY_MS).toISOString() });
    await insert({ message: 'presque', created_at: new Date(now - 30 * DAY_MS + 1).toISOString() });
    await insert({ message: 'récent', created_at: new Date(now - DAY_MS).toISOString() });

    for (const days of [0, 3651, 'abc', 1.5]) {
      const res = await post({ action: 'purge_old', days });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(LOG_MESSAGES.invalidDays);
    }
    expect(await allRows()).toHaveLength(4);

    const res = await post({ action: 'purge_old' });
    expect(res.statusCode).toBe(200);
    expect(ZDeleteLogsResponse.parse(res.json())).toMatchObject({ deleted: 1 });
    const messages = (await allRows()).map((r) => r.message);
    expect(messages).not.toContain('vieux');
    expect(messages).toEqual(expect.arrayContaining(['limite', 'presque', 'récent', 'Logs anciens purgés']));
    const audit = (await allRows()).find((r) => r.message === 'Logs anciens purgés')!;
    expect(audit.user_id).toBe(rootId);
    expect(JSON.parse(audit.details!)).toMatchObject({ days: 30, deleted: 1 });

    // One millisecond later the boundary entry is older than 30 days.
    clock.advance(1);
    expect((await post({ action: 'purge_old', days: '30' })).json()).toMatchObject({ deleted: 1 });
    expect((await allRows()).map((r) => r.message)).not.toContain('limite');
    expect((await post({ action: 'purge_old', days: 2 })).json()).toMatchObject({ deleted: 1 });
    expect((await allRows()).map((r) => r.message)).not.toContain('presque');
    expect((await allRows()).map((r) => r.message)).toContain('récent');
  });

  it('switches logging off and on: info skipped while off, errors and admin audit always kept', async () => {
    const off = await post({ action: 'toggle_logging', enabled: false });
    expect(off.statusCode).toBe(200);
    expect(ZToggleLoggingResponse.parse(off.json())).toMatchObject({
      logging_enabled: false,
      message: LOG_MESSAGES.loggingDisabled,
    });
    expect(await t.ctx.settings.getValue('system', 'logging_enabled')).toBe('0');
    expect((await page()).logging_enabled).toBe(false);
    // The switch itself is audited even though it turned logging off.
    const audit = (await allRows()).find((r) => r.message === LOG_MESSAGES.loggingDisabled);
    expect(audit).toMatchObject({ category: 'admin', user_id: rootId });

    await t.ctx.systemLog.info('system', 'info ignorée');
    await t.ctx.systemLog.warning('system', 'avertissement ignoré');
    await t.ctx.systemLog.error('system', 'erreur conservée');
    await t.ctx.systemLog.write({ level: 'critical', category: 'system', message: 'critique conservée' });
    let messages = (await allRows()).map((r) => r.message);
    expect(messages).not.toContain('info ignorée');
    expect(messages).not.toContain('avertissement ignoré');
    expect(messages).toEqual(expect.arrayContaining(['erreur conservée', 'critique conservée']));

    // Admin writes stay recorded while logging is off: the switch cannot hide what an admin does.
    await post({ action: 'clear_logs', category: 'system' });
    expect((await allRows()).find((r) => r.message === 'Logs supprimés')).toMatchObject({
      category: 'admin',
      user_id: rootId,
    });
    await t.ctx.systemLog.info('system', 'info toujours ignorée');
    expect((await allRows()).map((r) => r.message)).not.toContain('info toujours ignorée');

    const on = await post({ action: 'toggle_logging', enabled: '1' });
    expect(on.json()).toMatchObject({ logging_enabled: true, message: LOG_MESSAGES.loggingEnabled });
    expect((await page()).logging_enabled).toBe(true);
    await t.ctx.systemLog.info('system', 'info de retour');
    messages = (await allRows()).map((r) => r.message);
    expect(messages).toEqual(expect.arrayContaining(['info de retour', LOG_MESSAGES.loggingEnabled]));

    const missing = await post({ action: 'toggle_logging' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe(LOG_MESSAGES.enabledRequired);
    expect(await t.ctx.settings.getValue('system', 'logging_enabled')).toBe('1');
  });
});
