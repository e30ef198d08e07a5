import {
  EMAIL_MESSAGES,
  SECRET_MARKER,
  emailTemplateKindOf,
  escapeHtml,
  secretSettingLabel,
  secretsReentryMessage,
  templatePlaceholders,
  templateRestoredMessage,
  testEmailSentMessage,
  type TEmailTemplate,
  type ZCreateEmailTemplateRequest,
  type ZEmailTestRequest,
  type ZUpdateEmailTemplateRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { isUniqueViolation } from '../../db/database';
import { AppError, badRequest, conflict, notFound, tooManyRequests } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import { smtpSettingsFrom, type SmtpSettings } from '../../providers/mail/mail-transport';
import type { AdminRow } from '../admins/admin.repository';
import { DEFAULT_TEMPLATES } from '../email/default-templates';
import { EmailTemplateRepository, type EmailTemplateRow } from '../email/email-template.repository';
import type { RequestMeta } from '../sessions/session.service';
import { secretsToReenter } from '../settings/settings.policy';

/** Test emails an admin may send per minute (each one opens an SMTP connection). */
const TEST_EMAILS_PER_MINUTE = 10;

function parseVariables(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

export function toEmailTemplate(row: EmailTemplateRow): TEmailTemplate {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    body_html: row.body_html,
    body_text: row.body_text,
    variables: parseVariables(row.variables),
    is_active: row.is_active === 1,
    updated_at: row.updated_at,
    kind: emailTemplateKindOf(row.name),
  };
}

const isDefaultName = (name: string) => DEFAULT_TEMPLATES.some((t) => t.name === name);

/** Where an SMTP password would be sent, as the settings keys name it. */
function smtpDestination(smtp: SmtpSettings | undefined): Record<string, string> {
  return { host: smtp?.host ?? '', port: smtp ? String(smtp.port) : '', username: smtp?.username ?? '' };
}

/**
 * A failed test in a few fixed words: the server refused the credentials, refused the mail, or
 * could not be talked to (closed port, timeout, not SMTP…). Never the raw error, which would turn
 * the test into a probe of hosts and ports.
 */
export function smtpFailureSummary(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EAUTH') return EMAIL_MESSAGES.smtpAuthRefused;
  if (code === 'EENVELOPE' || code === 'EMESSAGE') return EMAIL_MESSAGES.smtpSendRefused;
  return EMAIL_MESSAGES.smtpUnreachable;
}

/** Email templates and the SMTP test of the Emails tab (spec 3 §2.5, §7 Email). */
export class AdminEmailsService {
  private readonly templates: EmailTemplateRepository;

  constructor(private readonly ctx: AppContext) {
    this.templates = new EmailTemplateRepository(ctx.db);
  }

  async list(): Promise<TEmailTemplate[]> {
    return (await this.templates.findAll()).map(toEmailTemplate);
  }

  async update(
    actor: AdminRow,
    input: z.output<typeof ZUpdateEmailTemplateRequest>,
    meta: RequestMeta,
  ): Promise<TEmailTemplate> {
    const current = await this.templates.findById(input.id);
    if (!current) throw notFound(EMAIL_MESSAGES.templateNotFound);
    const name = input.name ?? current.name;
    // Mails are sent by template name: a seeded template keeps its name.
    if (name !== current.name && isDefaultName(current.name))
      throw badRequest(EMAIL_MESSAGES.defaultNameLocked);
    const changes: Partial<EmailTemplateRow> = {
      name,
      subject: input.subject,
      body_html: input.body_html,
      body_text: input.body_text,
      variables: JSON.stringify(
        input.variables ?? templatePlaceholders(input.subject, input.body_html, input.body_text),
      ),
      ...(input.is_active === undefined ? {} : { is_active: input.is_active ? 1 : 0 }),
      updated_at: this.ctx.clock.now().toISOString(),
    };
    try {
      await this.templates.update(current.id, changes);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(EMAIL_MESSAGES.nameTaken);
      throw error;
    }
    const updated = { ...current, ...changes } as EmailTemplateRow;
    await this.ctx.systemLog.adminAction(actor, meta, 'Modèle d’email modifié', {
      template_id: current.id,
      name: updated.name,
      ...(name !== current.name ? { previous_name: current.name } : {}),
      is_active: updated.is_active === 1,
    });
    return toEmailTemplate(updated);
  }

  async create(
    actor: AdminRow,
    input: z.output<typeof ZCreateEmailTemplateRequest>,
    meta: RequestMeta,
  ): Promise<TEmailTemplate> {
    if (await this.templates.findByName(input.name)) throw conflict(EMAIL_MESSAGES.nameTaken);
    const now = this.ctx.clock.now().toISOString();
    const row: EmailTemplateRow = {
      id: newId(),
      name: input.name,
      subject: input.subject,
      body_html: input.body_html,
      body_text: input.body_text,
      variables: JSON.stringify(
        input.variables ?? templatePlaceholders(input.subject, input.body_html, input.body_text),
      ),
      is_active: input.is_active === false ? 0 : 1,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.templates.insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(EMAIL_MESSAGES.nameTaken);
      throw error;
    }
    await this.ctx.systemLog.adminAction(actor, meta, 'Modèle d’email créé', {
      template_id: row.id,
      name: row.name,
    });
    return toEmailTemplate(row);
  }

  /** Restores subject, bodies and variables of a seeded template; its active flag is kept. */
  async resetDefault(
    actor: AdminRow,
    name: string,
    meta: RequestMeta,
  ): Promise<{ message: string; template: TEmailTemplate }> {
    const def = DEFAULT_TEMPLATES.find((t) => t.name === name);
    if (!def) throw notFound(EMAIL_MESSAGES.defaultNotFound);
    const now = this.ctx.clock.now().toISOString();
    const content = {
      subject: def.subject,
      body_html: def.body_html,
      body_text: def.body_text,
      variables: JSON.stringify(def.variables),
      updated_at: now,
    };
    const current = await this.templates.findByName(name);
    let row: EmailTemplateRow;
    if (current) {
      await this.templates.update(current.id, content);
      row = { ...current, ...content };
    } else {
      row = { id: newId(), name, ...content, is_active: 1, created_at: now };
      await this.templates.insertMissing([row]);
      row = (await this.templates.findByName(name)) ?? row;
    }
    await this.ctx.systemLog.adminAction(actor, meta, 'Modèle d’email réinitialisé', {
      template_id: row.id,
      name,
    });
    return { message: templateRestoredMessage(name), template: toEmailTemplate(row) };
  }

  /**
   * Sends a short test email at once with the given SMTP values (the stored ones fill the gaps; the
   * secret marker stands for the stored password, but only towards the stored host, port and
   * username). An SMTP failure answers 502 with a fixed summary; the raw error goes to the log.
   */
  async sendTest(
    actor: AdminRow,
    input: z.output<typeof ZEmailTestRequest>,
    meta: RequestMeta,
  ): Promise<string> {
    const limit = await this.ctx.rateLimiter.hit(
      `admin-email-test:${actor.id}`,
      TEST_EMAILS_PER_MINUTE,
      60_000,
    );
    if (!limit.allowed) throw tooManyRequests(Math.ceil(limit.resetMs / 1000));

    const stored = await this.ctx.settings.getCategory('smtp');
    const given = input.smtp;
    // The marker (or no password) stands for the stored password, for the stored server only.
    const newPassword =
      given?.password === undefined || given.password === SECRET_MARKER ? undefined : given.password;
    const values: Record<string, string> = given
      ? {
          host: given.host ?? stored.host ?? '',
          port: given.port !== undefined ? String(given.port) : (stored.port ?? ''),
          username: given.username ?? stored.username ?? '',
          password: newPassword ?? stored.password ?? '',
          encryption: given.encryption ?? stored.encryption ?? 'tls',
          from_email: given.from_email || stored.from_email || '',
          from_name: given.from_name || stored.from_name || '',
        }
      : stored;
    const smtp = smtpSettingsFrom(values);
    if (!smtp) throw badRequest(EMAIL_MESSAGES.smtpHostRequired);
    const stale = secretsToReenter(
      'smtp',
      { ...smtpDestination(smtpSettingsFrom(stored)), password: stored.password ?? '' },
      { ...smtpDestination(smtp), ...(newPassword === undefined ? {} : { password: newPassword }) },
    );
    if (stale.length > 0)
      throw badRequest(secretsReentryMessage(stale.map((key) => secretSettingLabel('smtp', key))));

    const siteName = (await this.ctx.settings.getValue('general', 'site_name')) || 'SecureRing';
    const sentAt = this.ctx.clock.now().toISOString();
    const text = `Bonjour,

Ceci est un email de test envoyé depuis l’administration de ${siteName}.
Si vous le recevez, la configuration SMTP fonctionne (serveur ${smtp.host}:${smtp.port}, chiffrement ${smtp.encryption}).

Envoyé le ${sentAt} (UTC).`;
    const html = `<!doctype html><html lang="fr"><body style="font-family:Arial,Helvetica,sans-serif;color:#0f172a">
<h1 style="font-size:18px">Email de test</h1>
<p>Ceci est un email de test envoyé depuis l’administration de ${escapeHtml(siteName)}.</p>
<p>Si vous le recevez, la configuration SMTP fonctionne (serveur ${escapeHtml(smtp.host)}:${smtp.port}, chiffrement ${smtp.encryption}).</p>
<p style="font-size:12px;color:#64748b">Envoyé le ${sentAt} (UTC).</p>
</body></html>`;
    const details = {
      to: input.email,
      host: smtp.host,
      port: smtp.port,
      encryption: smtp.encryption,
      from_email: smtp.fromEmail,
    };
    try {
      await this.ctx.mail.sendDirect(
        { to: input.email, subject: `Email de test — ${siteName}`, html, text },
        smtp,
      );
    } catch (error) {
      // The raw text stays in the system log; the answer only says how far the test got.
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      await this.ctx.systemLog.warning('email', 'Échec de l’email de test', {
        userId: actor.id,
        ip: meta.ip,
        userAgent: meta.userAgent,
        details: { ...details, error: reason },
      });
      throw new AppError(502, `${EMAIL_MESSAGES.testFailedPrefix}${smtpFailureSummary(error)}`);
    }
    await this.ctx.systemLog.adminAction(actor, meta, 'Email de test envoyé', details);
    return testEmailSentMessage(input.email);
  }
}
