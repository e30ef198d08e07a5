import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, MINUTE_MS } from '../../src/lib/clock';
import { MAX_SEND_ATTEMPTS } from '../../src/modules/email/mail.service';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, buildRing, buildSubscription, customerToken } from '../factories';
import { captureLog } from '../log-capture';
import { SmtpCatcher } from '../smtp-catcher';

describe('mail outbox', () => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  const clock = new ManualClock('2026-11-22T10:00:00.000Z');

  beforeAll(async () => {
    smtp = await new SmtpCatcher({ user: 'mailer', pass: 'mail-secret' }).start();
    t = await buildTestApp({ clock });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const outbox = () => t.ctx.db.selectFrom('email_outbox').selectAll().orderBy('created_at').execute();

  it('without SMTP settings, keeps the mail in the outbox and prints its links to the log', async () => {
    const lines: string[] = [];
    const original = t.ctx.logger.info.bind(t.ctx.logger);
    t.ctx.logger.info = ((obj: unknown, msg?: string) => {
      if (typeof msg === 'string') lines.push(msg);
      return original(obj as object, msg);
    }) as typeof t.ctx.logger.info;
    try {
      const queued = await t.ctx.mail.sendTemplate('welcome_verification', 'lea@example.com', {
        first_name: 'Léa',
        verification_url: 'http://127.0.0.1:9999/verify-email?token=abc123',
      });
      expect(queued).toBe(true);
      await t.ctx.mail.processDue();
      await t.ctx.mail.idle();
    } finally {
      t.ctx.logger.info = original;
    }
    const rows = await outbox();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'logged', to_address: 'lea@example.com' });
    expect(rows[0]!.subject).toBe('Bienvenue sur SecureRing — confirmez votre adresse email');
    expect(lines.some((l) => l.includes('http://127.0.0.1:9999/verify-email?token=abc123'))).toBe(true);
  });

  it('delivers through SMTP with the stored settings, escaping variables in HTML', async () => {
    await t.ctx.settings.save('smtp', smtp.settings());
    await t.ctx.mail.sendTemplate('password_reset', 'tom@example.com', {
      first_name: '<b>Tom</b>',
      reset_url: 'http://127.0.0.1:9999/reset-password?token=xyz',
    });
    const mail = await smtp.waitFor((m) => m.to.includes('tom@example.com'));
    expect(mail.subject).toBe('Réinitialisation de votre mot de passe SecureRing');
    expect(mail.from).toContain('no-reply@securering.test');
    expect(mail.text).toContain('http://127.0.0.1:9999/reset-password?token=xyz');
    expect(mail.html).toContain('&lt;b&gt;Tom&lt;/b&gt;');
    await t.ctx.mail.idle();
    const row = (await outbox()).find((r) => r.to_address === 'tom@example.com');
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('retries a refused delivery with backoff, then gives up and logs an error', async () => {
    smtp.failNext = MAX_SEND_ATTEMPTS;
    await t.ctx.mail.enqueue({ to: 'retry@example.com', subject: 'Essai', html: '<p>x</p>', text: 'x' });
    await t.ctx.mail.processDue();
    await t.ctx.mail.idle();
    let row = (await outbox()).find((r) => r.to_address === 'retry@example.com')!;
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row.next_attempt_at).toBe(new Date(clock.now().getTime() + MINUTE_MS).toISOString());

    // Not due yet: nothing happens.
    await t.ctx.mail.processDue();
    row = (await outbox()).find((r) => r.to_address === 'retry@example.com')!;
    expect(row.attempts).toBe(1);

    for (let attempt = 2; attempt <= MAX_SEND_ATTEMPTS; attempt++) {
      clock.advance(20 * MINUTE_MS);
      await t.ctx.mail.processDue();
      await t.ctx.mail.idle();
    }
    row = (await outbox()).find((r) => r.to_address === 'retry@example.com')!;
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_SEND_ATTEMPTS });
    expect(row.last_error).toContain('451');
    const errors = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('category', '=', 'email')
      .where('level', '=', 'error')
      .execute();
    expect(errors.some((e) => e.message.includes('retry@example.com'))).toBe(true);
    expect(smtp.messages.some((m) => m.to.includes('retry@example.com'))).toBe(false);
  });

  it('does not send an inactive template and says so in the system log', async () => {
    await t.ctx.db
      .updateTable('email_templates')
      .set({ is_active: 0 })
      .where('name', '=', 'subscription_reminder')
      .execute();
    const queued = await t.ctx.mail.sendTemplate('subscription_reminder', 'x@example.com', {});
    expect(queued).toBe(false);
    expect((await outbox()).some((r) => r.to_address === 'x@example.com')).toBe(false);
  });
});

describe('invitation codes in the server log (issue 27)', () => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  const log = captureLog();

  beforeAll(async () => {
    smtp = await new SmtpCatcher({ user: 'mailer', pass: 'mail-secret' }).start();
    t = await buildTestApp({ logStream: log.stream, config: { logLevel: 'info' } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  async function inviteByMail(email: string): Promise<string> {
    const customer = await buildCustomer(t.ctx);
    await buildSubscription(t.ctx, customer.id);
    const ring = await buildRing(t.ctx, customer.id);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/customer/ring-users.php',
      headers: bearer(await customerToken(t.ctx, customer.id)),
      payload: { ring_id: ring.id, username: 'invité', email },
    });
    expect(res.statusCode).toBe(200);
    await t.ctx.mail.processDue();
    await t.ctx.mail.idle();
    return res.json().data.inviteCode as string;
  }

  it('are written to the log only while no SMTP server is configured, which a start-up warning says', async () => {
    // Local development: no SMTP, the log holds the link (and says so at start).
    expect(await t.ctx.mail.loggingWarning()).toMatch(/^Aucun serveur SMTP configuré/);
    const local = await inviteByMail('local@example.com');
    expect(log.text()).toContain(local);

    // A real server: SMTP delivers the invitation, the log never sees its code.
    await t.ctx.settings.save('smtp', smtp.settings());
    expect(await t.ctx.mail.loggingWarning()).toBeUndefined();
    const delivered = await inviteByMail('remote@example.com');
    const mail = await smtp.waitFor((m) => m.to.includes('remote@example.com'));
    expect(mail.text).toContain(delivered);
    await t.ctx.mail.idle();
    expect(log.text()).not.toContain(delivered);
  });
});
