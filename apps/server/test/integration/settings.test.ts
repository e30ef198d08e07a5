import { MESSAGES, SECRET_MARKER, secretsReentryMessage } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin } from '../factories';

describe('settings', () => {
  let t: TestApp;
  let superToken: string;
  let siteToken: string;
  let plansOnlyToken: string;

  beforeAll(async () => {
    t = await buildTestApp();
    const root = await t.ctx.admins.findByUsername('root');
    superToken = await adminToken(t.ctx, root!.id);
    const site = await buildAdmin(t.ctx, {
      permissions: [
        ['site_settings', 'view'],
        ['site_settings', 'edit'],
      ],
    });
    siteToken = await adminToken(t.ctx, site.id);
    const plansOnly = await buildAdmin(t.ctx, { permissions: [['plans', 'view']] });
    plansOnlyToken = await adminToken(t.ctx, plansOnly.id);
  });
  afterAll(() => t.close());

  const save = (token: string, category: string, settings: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/admin/settings.php',
      headers: bearer(token),
      payload: { category, settings },
    });

  it('seeds French defaults and serves the maintenance flag publicly', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/settings.php?category=maintenance' });
    expect(res.json()).toEqual({
      success: true,
      data: { maintenance: { maintenance_mode: { setting_value: '0' } } },
    });
    const general = await t.app.inject({ method: 'GET', url: '/api/admin/settings.php?category=general' });
    const data = general.json().data.general;
    expect(data.site_name.setting_value).toBe('SecureRing');
    expect(data.primary_color.setting_value).toBe('#3b82f6');
    expect(data.secondary_color.setting_value).toBe('#64748b');
  });

  it('never returns secrets or admin-only keys in public reads', async () => {
    await save(superToken, 'stripe', { secret_key_test: 'sk_test_very_secret', webhook_secret: 'whsec_abc' });
    await save(superToken, 'smtp', { host: 'smtp.example.com', password: 'smtp-pass' });
    for (const url of ['/api/settings.php', '/api/admin/settings.php']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('sk_test_very_secret');
      expect(res.body).not.toContain('whsec_abc');
      expect(res.body).not.toContain('smtp-pass');
      expect(res.body).not.toContain('smtp.example.com');
      const data = res.json().data;
      expect(data.stripe.enabled.setting_value).toBe('0');
      expect(data.stripe.secret_key_test).toBeUndefined();
      expect(data.smtp).toBeUndefined();
      expect(data.general.ring_storage_dir).toBeUndefined();
      expect(data.realtime.heartbeat_sec.setting_value).toBe('20');
    }
  });

  it('shows secrets to an admin as the marker only, and saving the marker keeps them', async () => {
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(superToken),
    });
    expect(read.body).not.toContain('sk_test_very_secret');
    const data = read.json().data;
    expect(data.stripe.secret_key_test.setting_value).toBe(SECRET_MARKER);
    expect(data.stripe.secret_key_live.setting_value).toBe('');
    expect(data.smtp.host.setting_value).toBe('smtp.example.com');
    expect(data.smtp.password.setting_value).toBe(SECRET_MARKER);

    const res = await save(superToken, 'stripe', {
      secret_key_test: SECRET_MARKER,
      public_key_test: '',
      enabled: '1',
    });
    expect(res.statusCode).toBe(200);
    expect(await t.ctx.settings.getValue('stripe', 'secret_key_test')).toBe('sk_test_very_secret');
    expect(await t.ctx.settings.getValue('stripe', 'enabled')).toBe('1');
  });

  it('never keeps a secret behind the marker when the same save changes where it goes', async () => {
    await save(superToken, 'smtp', {
      host: 'smtp.example.com',
      port: '587',
      username: 'mailer',
      password: 'smtp-pass',
    });
    await save(superToken, 'stripe', {
      public_key_test: 'pk_test_a',
      secret_key_test: 'sk_test_a',
      webhook_secret: 'whsec_a',
    });
    await save(superToken, 'paypal', { client_id_test: 'client-a', client_secret_test: 'paypal-secret-a' });
    await save(superToken, 'nowpayments', { test_mode: '1', api_key: 'np-key', ipn_secret: 'np-ipn' });
    const before = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(superToken),
    });

    const refused: Array<[string, Record<string, unknown>, string[]]> = [
      ['smtp', { host: 'attacker.example.net', password: SECRET_MARKER }, ['Mot de passe SMTP']],
      ['smtp', { host: 'smtp.example.com', port: '2525' }, ['Mot de passe SMTP']],
      ['smtp', { username: 'other', password: SECRET_MARKER, from_name: 'X' }, ['Mot de passe SMTP']],
      [
        'stripe',
        { public_key_test: 'pk_test_b', secret_key_test: SECRET_MARKER },
        ['Clé secrète Stripe (test)'],
      ],
      ['stripe', { test_mode: '0', webhook_secret: SECRET_MARKER }, ['Secret du webhook Stripe']],
      ['paypal', { client_id_test: 'client-b' }, ['Secret client PayPal (sandbox)']],
      ['nowpayments', { test_mode: '0' }, ['Clé API NOWPayments', 'Secret IPN NOWPayments']],
    ];
    for (const [category, settings, labels] of refused) {
      const res = await save(superToken, category, settings);
      expect(res.statusCode, `${category} ${JSON.stringify(settings)}`).toBe(400);
      expect(res.json().error).toBe(secretsReentryMessage(labels));
    }
    const after = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(superToken),
    });
    expect(after.json()).toEqual(before.json());
    expect(await t.ctx.settings.getValue('smtp', 'password')).toBe('smtp-pass');

    // With the secret typed again (or cleared), the new destination is saved.
    const moved = await save(superToken, 'smtp', { host: 'smtp2.example.com', password: 'new-pass' });
    expect(moved.statusCode).toBe(200);
    expect(await t.ctx.settings.getCategory('smtp')).toMatchObject({
      host: 'smtp2.example.com',
      password: 'new-pass',
    });
    const live = await save(superToken, 'nowpayments', {
      test_mode: '0',
      api_key: 'np-live',
      ipn_secret: '',
    });
    expect(live.statusCode).toBe(200);
    expect(await t.ctx.settings.getCategory('nowpayments')).toMatchObject({
      test_mode: '0',
      api_key: 'np-live',
      ipn_secret: '',
    });
    // Unchanged destinations keep the marker working.
    const same = await save(superToken, 'stripe', {
      test_mode: '1',
      public_key_test: 'pk_test_a',
      secret_key_test: SECRET_MARKER,
      webhook_secret: SECRET_MARKER,
      enabled: '0',
    });
    expect(same.statusCode).toBe(200);
    expect(await t.ctx.settings.getValue('stripe', 'secret_key_test')).toBe('sk_test_a');
  });

  it('hides categories of modules the admin may not view', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(siteToken),
    });
    const data = res.json().data;
    expect(data.smtp).toBeUndefined();
    expect(data.general.ring_refresh_interval.setting_value).toBe('10');
  });

  it('accepts the retired Ring storage folder from an older form but stores and shows it nowhere (issue 25)', async () => {
    const res = await save(siteToken, 'general', {
      ring_storage_dir: '/ailleurs',
      site_title: 'Titre gardé',
    });
    expect(res.statusCode).toBe(200);
    const stored = await t.ctx.db
      .selectFrom('settings')
      .select('setting_value')
      .where('category', '=', 'general')
      .where('key', '=', 'ring_storage_dir')
      .execute();
    expect(stored.map((r) => r.setting_value)).not.toContain('/ailleurs');
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer(superToken),
    });
    expect(read.json().data.general.ring_storage_dir).toBeUndefined();
    expect(read.json().data.general.site_title.setting_value).toBe('Titre gardé');
  });

  it('validates every value and stores nothing when one is invalid', async () => {
    const res = await save(superToken, 'general', { site_name: 'Nouveau nom', primary_color: 'red' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('#rrggbb');
    expect(await t.ctx.settings.getValue('general', 'site_name')).toBe('SecureRing');

    const bounds = await save(superToken, 'realtime', { heartbeat_sec: 200 });
    expect(bounds.statusCode).toBe(400);
    expect(bounds.json().error).toContain('entre 5 et 120');

    const step = await save(superToken, 'realtime', { polling_backoff_factor: '1.3' });
    expect(step.statusCode).toBe(400);

    const order = await save(superToken, 'realtime', { polling_initial_sec: 600, polling_max_sec: 300 });
    expect(order.statusCode).toBe(400);
    expect(await t.ctx.settings.getValue('realtime', 'polling_initial_sec')).toBe('60');

    const unknown = await save(superToken, 'general', { not_a_key: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toContain(MESSAGES.unknownSettingKey);

    const category = await save(superToken, 'nope', { a: 'b' });
    expect(category.statusCode).toBe(400);
    expect(category.json().error).toBe(MESSAGES.unknownSettingsCategory);
  });

  it('sanitises legal HTML before storing it', async () => {
    const hostile =
      '<h2>CGU</h2><script>alert(1)</script><p onclick="steal()" style="color:red">Texte <a href="javascript:alert(1)">x</a> <a href="https://ok.example">ok</a></p><img src=x onerror=alert(1)>';
    const res = await save(superToken, 'legal', { terms_content: hostile });
    expect(res.statusCode).toBe(200);
    const stored = await t.ctx.settings.getValue('legal', 'terms_content');
    expect(stored).toContain('<h2>CGU</h2>');
    expect(stored).toContain('href="https://ok.example"');
    expect(stored).not.toMatch(/script|onclick|onerror|style=|javascript:|<img/i);
  });

  it('requires the edit permission of the category module', async () => {
    const noModule = await save(plansOnlyToken, 'general', { site_name: 'X' });
    expect(noModule.statusCode).toBe(403);
    expect(noModule.json().error).toBe(MESSAGES.noEditRight);

    const maintenance = await save(plansOnlyToken, 'maintenance', { maintenance_mode: '1' });
    expect(maintenance.statusCode).toBe(403);
    expect(maintenance.json().error).toBe(MESSAGES.noEditRight);

    const allowedPayment = await save(siteToken, 'stripe', { enabled: '1' });
    expect(allowedPayment.statusCode).toBe(403);

    const ok = await save(siteToken, 'general', { site_name: 'Mon Ring' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ success: true, message: 'Paramètres enregistrés' });
  });

  it('toggles maintenance with the spec messages, also when sent under general', async () => {
    const on = await save(siteToken, 'general', { maintenance_mode: '1' });
    expect(on.json()).toEqual({ success: true, message: 'Mode maintenance activé' });
    const read = await t.app.inject({ method: 'GET', url: '/api/settings.php?category=maintenance' });
    expect(read.json().data.maintenance.maintenance_mode.setting_value).toBe('1');
    const off = await save(siteToken, 'maintenance', { maintenance_mode: false });
    expect(off.json()).toEqual({ success: true, message: 'Mode maintenance désactivé' });
  });

  it('requires an admin token to write and records the write in the system log', async () => {
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/admin/settings.php',
      payload: { category: 'general', settings: { site_name: 'X' } },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toBe(MESSAGES.notAuthenticated);

    const logs = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('category', '=', 'admin')
      .execute();
    expect(logs.some((l) => l.message.includes('general') && l.user_id)).toBe(true);
  });

  it('answers 401 "Session expirée" when a bearer is sent but not valid', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/settings.php',
      headers: bearer('forged'),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe(MESSAGES.sessionExpired);
  });

  it('keeps settings across a restart of the app on the same database', async () => {
    await save(superToken, 'general', { tagline: 'Conservé après redémarrage' });
    const second = await buildTestApp({ database: t.database });
    try {
      expect(await second.ctx.settings.getValue('general', 'tagline')).toBe('Conservé après redémarrage');
    } finally {
      await second.app.close();
    }
  });
});
