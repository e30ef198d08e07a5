import {
  EMAIL_MESSAGES,
  MESSAGES,
  SECRET_MARKER,
  secretsReentryMessage,
  ZEmailTemplateSavedResponse,
  ZEmailTemplatesResponse,
  type TEmailTemplate,
} from '@securering/contract';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATES } from '../../src/modules/email/default-templates';
import { buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin } from '../factories';
import { SmtpCatcher } from '../smtp-catcher';

describe('admin emails API', () => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  let rootId: string;
  let superToken: string;
  let viewToken: string;
  let editToken: string;
  let otherModuleToken: string;
  let editorId: string;

  beforeAll(async () => {
    smtp = await new SmtpCatcher({ user: 'mailer', pass: 'mail-secret' }).start();
    t = await buildTestApp();
    const root = await t.ctx.admins.findByUsername('root');
    rootId = root!.id;
    superToken = await adminToken(t.ctx, rootId);
    const viewer = await buildAdmin(t.ctx, { permissions: [['email_management', 'view']] });
    viewToken = await adminToken(t.ctx, viewer.id);
    const editor = await buildAdmin(t.ctx, {
      permissions: [
        ['email_management', 'view'],
        ['email_management', 'edit'],
      ],
    });
    editorId = editor.id;
    editToken = await adminToken(t.ctx, editor.id);
    const other = await buildAdmin(t.ctx, { permissions: [['system_logs', 'view']] });
    otherModuleToken = await adminToken(t.ctx, other.id);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const URL = '/api/admin/email-templates.php';
  const listTemplates = async (token = superToken): Promise<TEmailTemplate[]> => {
    const res = await t.app.inject({ method: 'GET', url: URL, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    const body = ZEmailTemplatesResponse.parse(res.json());
    expect(body.meta.total).toBe(body.data.length);
    return body.data;
  };
  const byName = async (name: string) => (await listTemplates()).find((tpl) => tpl.name === name)!;
  const put = (payload: Record<string, unknown>, token = superToken) =>
    t.app.inject({ method: 'PUT', url: URL, headers: bearer(token), payload });
  const post = (payload: Record<string, unknown>, token = superToken) =>
    t.app.inject({ method: 'POST', url: URL, headers: bearer(token), payload });
  const testEmail = (payload: Record<string, unknown>, token = superToken) =>
    t.app.inject({ method: 'POST', url: '/api/admin/email-test.php', headers: bearer(token), payload });
  const auditLines = (message: string) =>
    t.ctx.db.selectFrom('system_logs').selectAll().where('message', '=', message).execute();

  it('lists every seeded template with its kind, variables and active flag', async () => {
    const data = await listTemplates();
    expect(data.map((d) => d.name).sort()).toEqual(DEFAULT_TEMPLATES.map((d) => d.name).sort());
    const kinds = Object.fromEntries(data.map((d) => [d.name, d.kind]));
    expect(kinds).toMatchObject({
      welcome_verification: 'welcome',
      payment_confirmation: 'payment',
      payment_failed: 'payment',
      subscription_reminder: 'reminder',
      password_reset: 'password_reset',
      contact_notification: 'password_reset',
    });
    const reset = data.find((d) => d.name === 'password_reset')!;
    expect(reset.variables).toEqual(['first_name', 'reset_url', 'site_name', 'site_url']);
    expect(reset.is_active).toBe(true);
    expect(reset.subject).toBe(DEFAULT_TEMPLATES.find((d) => d.name === 'password_reset')!.subject);
  });

  it('checks the token, the module and the permission of each call', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: URL });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
    const anonymousTest = await t.app.inject({
      method: 'POST',
      url: '/api/admin/email-test.php',
      payload: { email: 'x@example.com' },
    });
    expect(anonymousTest.statusCode).toBe(401);

    const otherModule = await t.app.inject({ method: 'GET', url: URL, headers: bearer(otherModuleToken) });
    expect(otherModule.statusCode).toBe(403);
    expect(otherModule.json().error).toBe(MESSAGES.forbidden);
    expect((await post({ action: 'inconnue' }, otherModuleToken)).statusCode).toBe(403);
    expect((await testEmail({ email: 'x@example.com' }, otherModuleToken)).statusCode).toBe(403);

    const template = (await listTemplates(viewToken)).find((d) => d.name === 'password_reset')!;
    const denied = [
      await put({ id: template.id, subject: 'Piraté', body_html: '<p>x</p>' }, viewToken),
      await post({ action: 'reset_default', name: 'password_reset' }, viewToken),
      await post({ name: 'nouveau', subject: 'S', body_html: '<p>x</p>' }, viewToken),
      await testEmail({ email: 'x@example.com' }, viewToken),
      // edit does not include create
      await post({ name: 'nouveau', subject: 'S', body_html: '<p>x</p>' }, editToken),
    ];
    for (const res of denied) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(MESSAGES.noEditRight);
    }
    expect((await byName('password_reset')).subject).toBe(template.subject);
    expect((await listTemplates()).some((d) => d.name === 'nouveau')).toBe(false);

    // edit right: may edit and reset.
    const edited = await put({ ...template, subject: 'Sujet modifié', is_active: 1 }, editToken);
    expect(edited.statusCode).toBe(200);
    expect((await post({ action: 'reset_default', name: 'password_reset' }, editToken)).statusCode).toBe(200);
    const audit = await auditLines('Modèle d’email modifié');
    expect(audit.some((a) => a.user_id === editorId)).toBe(true);
  });

  it('edits a template, which the mails then use, and refuses bad input without changing anything', async () => {
    const template = await byName('payment_failed');
    const res = await put({
      id: template.id,
      name: template.name,
      subject: '  Paiement refusé : {{plan_name}}  ',
      body_html: '<p>Bonjour {{first_name}}, paiement refusé.</p>',
      body_text: 'Bonjour {{first_name}}, paiement refusé.',
      variables: ['first_name', 'plan_name'],
      is_active: 0,
    });
    expect(res.statusCode).toBe(200);
    const saved = ZEmailTemplateSavedResponse.parse(res.json());
    expect(saved.data).toMatchObject({
      subject: 'Paiement refusé : {{plan_name}}',
      is_active: false,
      variables: ['first_name', 'plan_name'],
    });
    const stored = await byName('payment_failed');
    expect(stored).toMatchObject({
      subject: 'Paiement refusé : {{plan_name}}',
      body_html: '<p>Bonjour {{first_name}}, paiement refusé.</p>',
      is_active: false,
    });
    // Inactive: the mail is not sent.
    expect(await t.ctx.mail.sendTemplate('payment_failed', 'a@example.com', { first_name: 'A' })).toBe(false);

    const audit = await auditLines('Modèle d’email modifié');
    expect(audit.some((a) => a.user_id === rootId && JSON.parse(a.details!).name === 'payment_failed')).toBe(
      true,
    );

    // Reactivate with variables given as text; omitted variables are derived from placeholders.
    expect((await put({ ...stored, is_active: '1', variables: 'first_name, plan_name' })).statusCode).toBe(
      200,
    );
    const derived = await put({
      id: stored.id,
      subject: 'Sujet {{a}}',
      body_html: '<p>{{b}}</p>',
      body_text: '{{a}}',
    });
    expect(derived.json().data.variables).toEqual(['a', 'b']);
    expect(derived.json().data.is_active).toBe(true);

    const before = await byName('payment_failed');
    const cases: Array<[Record<string, unknown>, string | RegExp, number]> = [
      [{ id: before.id, subject: '', body_html: '<p>x</p>' }, EMAIL_MESSAGES.subjectRequired, 400],
      [{ id: before.id, body_html: '<p>x</p>' }, EMAIL_MESSAGES.subjectRequired, 400],
      [{ id: before.id, subject: 'S', body_html: '   ' }, EMAIL_MESSAGES.htmlRequired, 400],
      [
        { id: before.id, subject: 'x'.repeat(501), body_html: '<p>x</p>' },
        EMAIL_MESSAGES.subjectTooLong,
        400,
      ],
      [{ id: before.id, subject: 'S', body_html: 'x'.repeat(200_001) }, EMAIL_MESSAGES.htmlTooLong, 400],
      [
        { id: before.id, subject: 'S', body_html: '<p>x</p>', variables: ['ok', 'pas ok'] },
        EMAIL_MESSAGES.variableInvalid,
        400,
      ],
      [
        { id: before.id, name: 'autre_nom', subject: 'S', body_html: '<p>x</p>' },
        EMAIL_MESSAGES.defaultNameLocked,
        400,
      ],
      [{ subject: 'S', body_html: '<p>x</p>' }, EMAIL_MESSAGES.templateRequired, 400],
      [{ id: 'inconnu', subject: 'S', body_html: '<p>x</p>' }, EMAIL_MESSAGES.templateNotFound, 404],
    ];
    for (const [payload, error, status] of cases) {
      const bad = await put(payload);
      expect(bad.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(status);
      expect(bad.json().error).toBe(error);
    }
    expect(await byName('payment_failed')).toEqual(before);
  });

  it('resets a template to its default text exactly', async () => {
    const template = await byName('password_reset');
    await put({
      id: template.id,
      subject: 'Autre',
      body_html: '<p>autre</p>',
      body_text: 'autre',
      variables: ['x'],
      is_active: 0,
    });
    const res = await post({ action: 'reset_default', name: 'password_reset' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, message: 'Template password_reset restauré.' });
    const def = DEFAULT_TEMPLATES.find((d) => d.name === 'password_reset')!;
    const row = await t.ctx.db
      .selectFrom('email_templates')
      .selectAll()
      .where('name', '=', 'password_reset')
      .executeTakeFirstOrThrow();
    expect(row.subject).toBe(def.subject);
    expect(row.body_html).toBe(def.body_html);
    expect(row.body_text).toBe(def.body_text);
    expect(JSON.parse(row.variables)).toEqual(def.variables);
    expect(row.id).toBe(template.id);
    // The active flag is the admin's choice and is kept.
    expect(row.is_active).toBe(0);
    const audit = await auditLines('Modèle d’email réinitialisé');
    expect(audit.some((a) => a.user_id === rootId)).toBe(true);

    const unknown = await post({ action: 'reset_default', name: 'nexiste_pas' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ success: false, error: EMAIL_MESSAGES.defaultNotFound });
    expect((await post({ action: 'reset_default' })).json().error).toBe(EMAIL_MESSAGES.templateRequired);
    expect((await post({ action: 'supprimer', name: 'password_reset' })).json().error).toBe(
      EMAIL_MESSAGES.unknownAction,
    );
  });

  it('creates a new template with a unique name (API only)', async () => {
    const res = await post({
      name: 'newsletter_mensuelle',
      subject: 'Les nouveautés de {{site_name}}',
      body_html: '<p>Bonjour {{first_name}}</p>',
      body_text: 'Bonjour {{first_name}}',
      is_active: 1,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'newsletter_mensuelle',
      kind: 'password_reset',
      variables: ['site_name', 'first_name'],
      is_active: true,
    });
    const list = await listTemplates();
    expect(list).toHaveLength(DEFAULT_TEMPLATES.length + 1);
    const dup = await post({ name: 'newsletter_mensuelle', subject: 'S', body_html: '<p>x</p>' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe(EMAIL_MESSAGES.nameTaken);
    const badName = await post({ name: 'avec espace', subject: 'S', body_html: '<p>x</p>' });
    expect(badName.statusCode).toBe(400);
    expect(badName.json().error).toBe(EMAIL_MESSAGES.nameInvalid);
    // A custom template may be renamed, but not onto a taken name.
    const created = list.find((d) => d.name === 'newsletter_mensuelle')!;
    const clash = await put({ ...created, name: 'password_reset' });
    expect(clash.statusCode).toBe(409);
    const renamed = await put({ ...created, name: 'newsletter_hebdo' });
    expect(renamed.json().data.name).toBe('newsletter_hebdo');
    expect((await auditLines('Modèle d’email créé')).some((a) => a.user_id === rootId)).toBe(true);
  });

  it('sends a test email through the given SMTP server, the marker standing for the stored password', async () => {
    await t.ctx.settings.save('smtp', smtp.settings());
    const given = {
      ...smtp.settings(),
      port: smtp.port,
      password: SECRET_MARKER,
      from_email: 'tests@securering.test',
      from_name: 'Équipe test',
    };
    const res = await testEmail({ email: 'dest@example.com', smtp: given });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Email de test envoyé à dest@example.com' });
    const mail = await smtp.waitFor((m) => m.to.includes('dest@example.com'));
    expect(mail.from).toContain('tests@securering.test');
    expect(mail.from).toContain('Équipe test');
    expect(mail.subject).toContain('Email de test');
    expect(mail.text).toContain('email de test');
    const audit = await auditLines('Email de test envoyé');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.user_id).toBe(rootId);
    expect(JSON.parse(audit[0]!.details!)).toMatchObject({ to: 'dest@example.com', host: '127.0.0.1' });
    expect(audit[0]!.details).not.toContain('mail-secret');

    // Without smtp values, the stored settings are used.
    expect((await testEmail({ email: 'stored@example.com' })).statusCode).toBe(200);
    await smtp.waitFor((m) => m.to.includes('stored@example.com'));
  });

  it('answers 502 with the SMTP error for a wrong password, and 400 without an address', async () => {
    const received = smtp.messages.length;
    const res = await testEmail({
      email: 'nobody@example.com',
      smtp: { ...smtp.settings(), password: 'mauvais-mot-de-passe' },
    });
    expect(res.statusCode).toBe(502);
    const error: string = res.json().error;
    expect(error).toBe(`${EMAIL_MESSAGES.testFailedPrefix}${EMAIL_MESSAGES.smtpAuthRefused}`);
    expect(error).not.toContain('mauvais-mot-de-passe');
    expect(smtp.messages.length).toBe(received);
    const failure = await auditLines('Échec de l’email de test');
    expect(failure[0]).toMatchObject({ level: 'warning', category: 'email', user_id: rootId });

    const missing = await testEmail({ smtp: smtp.settings() });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ success: false, error: 'Email requis' });
    expect((await testEmail({ email: '' })).json().error).toBe('Email requis');
    expect((await testEmail({ email: 'pas-un-email' })).json().error).toBe(EMAIL_MESSAGES.emailInvalid);
    const badPort = await testEmail({ email: 'a@example.com', smtp: { ...smtp.settings(), port: '99999' } });
    expect(badPort.json().error).toBe(EMAIL_MESSAGES.smtpPortInvalid);
    const noHost = await testEmail({ email: 'a@example.com', smtp: { ...smtp.settings(), host: '   ' } });
    expect(noHost.statusCode).toBe(400);
    expect(noHost.json().error).toBe(EMAIL_MESSAGES.smtpHostRequired);
  });

  it('never sends the stored password to another server: host, port or username changed need it again', async () => {
    await t.ctx.settings.save('smtp', smtp.settings());
    // A server that would accept the stored credentials: it must never receive them.
    const elsewhere = await new SmtpCatcher({ user: 'mailer', pass: 'mail-secret' }).start();
    try {
      const refusal = secretsReentryMessage(['Mot de passe SMTP']);
      const attempts: Array<[string, Record<string, unknown>]> = [
        ['other port', { ...smtp.settings(), port: elsewhere.port, password: SECRET_MARKER }],
        ['other port, no password', { host: '127.0.0.1', port: elsewhere.port }],
        ['other host', { ...smtp.settings(), host: 'localhost', password: SECRET_MARKER }],
        ['other username', { ...smtp.settings(), username: 'someone-else', password: SECRET_MARKER }],
      ];
      for (const [label, given] of attempts) {
        const res = await testEmail({ email: 'probe@example.com', smtp: given }, editToken);
        expect(res.statusCode, label).toBe(400);
        expect(res.json(), label).toEqual({ success: false, error: refusal });
      }
      expect(elsewhere.messages).toEqual([]);
      expect(smtp.messages.some((m) => m.to.includes('probe@example.com'))).toBe(false);

      // Typed again, the password goes where the admin says; the stored settings are untouched.
      const typed = await testEmail(
        {
          email: 'typed@example.com',
          smtp: { ...smtp.settings(), port: elsewhere.port, password: 'mail-secret' },
        },
        editToken,
      );
      expect(typed.statusCode, typed.body).toBe(200);
      await elsewhere.waitFor((m) => m.to.includes('typed@example.com'));
      expect(await t.ctx.settings.getCategory('smtp')).toMatchObject({
        port: String(smtp.port),
        password: 'mail-secret',
      });
      // The same server with the marker still works.
      const same = await testEmail({
        email: 'same@example.com',
        smtp: { ...smtp.settings(), password: SECRET_MARKER },
      });
      expect(same.statusCode, same.body).toBe(200);
    } finally {
      await elsewhere.stop();
    }
  });

  it('answers "Serveur SMTP injoignable" for closed ports and other services, never the raw error', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const notSmtp = net.createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((resolve) => notSmtp.listen(0, '127.0.0.1', () => resolve()));
    try {
      for (const port of [closedPort, (notSmtp.address() as AddressInfo).port]) {
        const res = await testEmail({
          email: 'scan@example.com',
          smtp: { host: '127.0.0.1', port, username: '', password: '', encryption: 'none' },
        });
        expect(res.statusCode, String(port)).toBe(502);
        expect(res.json().error).toBe(`${EMAIL_MESSAGES.testFailedPrefix}${EMAIL_MESSAGES.smtpUnreachable}`);
        expect(res.body).not.toContain(String(port));
        expect(res.body).not.toMatch(/ECONN|HTTP|socket|greeting/i);
      }
      // The raw error is kept for the operator in the system log.
      const failures = await auditLines('Échec de l’email de test');
      expect(failures.some((f) => f.details?.includes('ECONNREFUSED'))).toBe(true);
    } finally {
      await new Promise<void>((resolve) => notSmtp.close(() => resolve()));
    }
  });
});
