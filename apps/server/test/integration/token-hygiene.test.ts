import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobs } from '../../src/jobs';
import { newId } from '../../src/lib/ids';
import { buildTestApp, type TestApp } from '../build-test-app';
import { captureLog } from '../log-capture';
import { SmtpCatcher } from '../smtp-catcher';

/** Tokens in links must not outlive their use in the request log or in the mail outbox. */
describe('tokens kept out of the request log and the outbox', () => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  const log = captureLog();

  beforeAll(async () => {
    smtp = await new SmtpCatcher().start();
    t = await buildTestApp({ config: { logLevel: 'info' }, logStream: log.stream });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const outboxRow = (to: string) =>
    t.ctx.db.selectFrom('email_outbox').selectAll().where('to_address', '=', to).executeTakeFirstOrThrow();
  const loggedUrls = () =>
    log
      .text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { req?: { url?: string } })
      .flatMap((entry) => (entry.req?.url ? [entry.req.url] : []));

  it('logs token-bearing requests with the token values redacted', async () => {
    await t.app.inject({ method: 'GET', url: '/api/auth/verify-email.php?token=VerifSecret123' });
    await t.app.inject({ method: 'GET', url: '/ring-access?invite=INVITESECRET9' });
    await t.app.inject({ method: 'GET', url: '/reset-password?token=ResetSecret456&lang=fr' });
    await t.app.inject({ method: 'GET', url: '/api/settings.php?category=general' });
    const urls = loggedUrls();
    expect(urls).toEqual(
      expect.arrayContaining([
        '/api/auth/verify-email.php?token=[redacted]',
        '/ring-access?invite=[redacted]',
        '/reset-password?token=[redacted]&lang=fr',
        '/api/settings.php?category=general',
      ]),
    );
    for (const secret of ['VerifSecret123', 'INVITESECRET9', 'ResetSecret456'])
      expect(log.text()).not.toContain(secret);
  });

  it('keeps no body once a mail is logged (no SMTP), but still prints its links to the server log', async () => {
    await t.ctx.mail.sendTemplate('password_reset', 'sans.smtp@example.com', {
      first_name: 'Léa',
      reset_url: 'http://127.0.0.1:9999/reset-password?token=LoggedToken42',
    });
    await t.ctx.mail.processDue();
    await t.ctx.mail.idle();
    const row = await outboxRow('sans.smtp@example.com');
    expect(row).toMatchObject({
      status: 'logged',
      template_name: 'password_reset',
      subject: 'Réinitialisation de votre mot de passe SecureRing',
      body_html: '',
      body_text: '',
    });
    expect(row.sent_at).not.toBeNull();
    expect(row.created_at).toBeTruthy();
    expect(log.text()).toContain('http://127.0.0.1:9999/reset-password?token=LoggedToken42');
  });

  it('keeps no body once a mail is sent through SMTP', async () => {
    await t.ctx.settings.save('smtp', smtp.settings());
    try {
      await t.ctx.mail.sendTemplate('password_reset', 'avec.smtp@example.com', {
        first_name: 'Tom',
        reset_url: 'http://127.0.0.1:9999/reset-password?token=SentToken77',
      });
      const received = await smtp.waitFor((m) => m.to.includes('avec.smtp@example.com'));
      expect(received.text).toContain('token=SentToken77');
      await t.ctx.mail.idle();
      const row = await outboxRow('avec.smtp@example.com');
      expect(row).toMatchObject({ status: 'sent', attempts: 1, body_html: '', body_text: '' });
      expect(row.subject).toBe('Réinitialisation de votre mot de passe SecureRing');
    } finally {
      await t.ctx.settings.save('smtp', { host: '' });
    }
  });

  it('blanks bodies that delivered mails kept from before, not those still to deliver', async () => {
    const now = t.ctx.clock.now().toISOString();
    const row = (status: 'sent' | 'logged' | 'pending' | 'failed', to: string) => ({
      id: newId(),
      to_address: to,
      subject: `Ancien ${status}`,
      body_html: '<p>http://x/verify-email?token=OldToken</p>',
      body_text: 'http://x/verify-email?token=OldToken',
      template_name: 'welcome_verification',
      status,
      attempts: 1,
      // Far in the future: the worker leaves the pending one alone.
      next_attempt_at: '2999-01-01T00:00:00.000Z',
      locked_until: null,
      last_error: null,
      created_at: now,
      sent_at: status === 'sent' || status === 'logged' ? now : null,
    });
    await t.ctx.db
      .insertInto('email_outbox')
      .values([
        row('sent', 'old.sent@example.com'),
        row('logged', 'old.logged@example.com'),
        row('pending', 'old.pending@example.com'),
      ])
      .execute();
    const job = buildJobs(t.ctx).find((j) => j.name === 'mail-body-purge');
    expect(job).toBeDefined();
    await job!.run();
    for (const to of ['old.sent@example.com', 'old.logged@example.com'])
      expect(await outboxRow(to)).toMatchObject({
        body_html: '',
        body_text: '',
        subject: expect.any(String),
      });
    expect((await outboxRow('old.pending@example.com')).body_text).toContain('OldToken');
  });
});
