import { renderTemplate, type TemplateVariables } from '@securering/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../lib/clock';
import { MINUTE_MS } from '../../lib/clock';
import { newId } from '../../lib/ids';
import {
  SmtpTransport,
  smtpSettingsFrom,
  type MailTransport,
  type OutgoingMail,
  type SmtpSettings,
} from '../../providers/mail/mail-transport';
import type { SettingsService } from '../settings/settings.service';
import type { SystemLogService } from '../system-logs/system-log.service';
import type { EmailTemplateRepository } from './email-template.repository';
import type { OutboxRepository, OutboxRow } from './outbox.repository';
import { extractLinks } from './extract-links';

export const MAX_SEND_ATTEMPTS = 5;

/**
 * A delivered mail keeps its recipient, subject, template, status and times, not its body: bodies
 * hold verification, reset and invitation links, which must not outlive the delivery in the database.
 */
const DELIVERED_BODIES = { body_html: '', body_text: '' } as const;
const LOCK_MS = 2 * MINUTE_MS;

/** Delay before attempt n+1: 1, 2, 4, 8 minutes. */
export function retryDelayMs(attempts: number): number {
  return MINUTE_MS * 2 ** Math.max(0, attempts - 1);
}

export interface MailServiceDeps {
  templates: EmailTemplateRepository;
  outbox: OutboxRepository;
  settings: SettingsService;
  clock: Clock;
  logger: FastifyBaseLogger;
  systemLog: SystemLogService;
  publicUrl: string;
  /** Tests may inject a transport factory; production builds SMTP from the smtp settings. */
  transportFor?: (settings: SmtpSettings) => MailTransport;
  /** Told what became of each delivery attempt (the instance's metrics). */
  onOutcome?: (outcome: 'sent' | 'logged' | 'retry' | 'failed') => void;
}

/**
 * Every mail goes through the outbox table: the request that triggers a mail only inserts a row,
 * and a worker delivers it with SMTP (or prints it to the log when SMTP is not configured),
 * retrying with backoff.
 */
export class MailService {
  /** Passes run one after another; each starts with a fresh clock reading. */
  private chain: Promise<unknown> = Promise.resolve();
  private kickPending = false;
  private stopped = false;

  constructor(private readonly deps: MailServiceDeps) {}

  /** Renders a database template and queues it. Never throws: failures are logged. */
  async sendTemplate(name: string, to: string, variables: TemplateVariables): Promise<boolean> {
    try {
      const template = await this.deps.templates.findByName(name);
      if (!template || !template.is_active) {
        await this.deps.systemLog.warning(
          'email',
          `Modèle d'email « ${name} » absent ou inactif : email non envoyé`,
          {
            details: { to },
          },
        );
        return false;
      }
      const vars = { ...(await this.commonVariables()), ...variables };
      await this.enqueue(
        {
          to,
          subject: renderTemplate(template.subject, vars, 'text'),
          html: renderTemplate(template.body_html, vars, 'html'),
          text: renderTemplate(template.body_text, vars, 'text'),
        },
        name,
      );
      return true;
    } catch (error) {
      this.deps.logger.error({ err: error, template: name }, 'mail enqueue failed');
      return false;
    }
  }

  async commonVariables(): Promise<TemplateVariables> {
    return {
      site_name: await this.deps.settings.getValue('general', 'site_name'),
      site_url: this.deps.publicUrl,
    };
  }

  async enqueue(mail: OutgoingMail, templateName: string | null = null): Promise<string> {
    const now = this.deps.clock.now().toISOString();
    const id = newId();
    await this.deps.outbox.insert({
      id,
      to_address: mail.to,
      subject: mail.subject.slice(0, 500),
      body_html: mail.html,
      body_text: mail.text,
      template_name: templateName,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      locked_until: null,
      last_error: null,
      created_at: now,
      sent_at: null,
    });
    this.kick();
    return id;
  }

  /**
   * The start-up warning while no SMTP server is configured (issue 27): every email, with its links
   * (invitation codes, password resets), is then written to the server log — the local-development
   * convenience, which must never go unnoticed on a real server. Undefined once SMTP is set.
   */
  async loggingWarning(): Promise<string | undefined> {
    if (smtpSettingsFrom(await this.deps.settings.getCategory('smtp'))) return undefined;
    return 'Aucun serveur SMTP configuré : les emails et leurs liens (invitations aux Rings, réinitialisations de mot de passe) sont écrits dans ce journal. Configurez SMTP dans le back-office (onglet Emails) avant toute mise en service.';
  }

  /** Sends immediately with the given SMTP settings and reports the error: the admin test email. */
  async sendDirect(mail: OutgoingMail, smtp: SmtpSettings): Promise<void> {
    const transport = await this.transportFor(smtp);
    try {
      await transport.send(mail);
    } finally {
      if (transport instanceof SmtpTransport) transport.close();
    }
  }

  /** Asks the worker to run soon; a burst of mails makes one pass. */
  kick(): void {
    if (this.stopped || this.kickPending) return;
    this.kickPending = true;
    setImmediate(() => {
      this.kickPending = false;
      void this.processDue();
    });
  }

  /** Delivers every entry due now, after any pass in progress. Returns how many were handled. */
  processDue(): Promise<number> {
    const pass = this.chain.then(() => this.runPass());
    this.chain = pass.catch(() => 0);
    return pass;
  }

  /** Waits until no pass is running or about to run; used on shutdown and by tests. */
  async idle(): Promise<void> {
    for (;;) {
      const current = this.chain;
      await current;
      if (this.kickPending) await new Promise((resolve) => setImmediate(resolve));
      else if (current === this.chain) return;
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /** Blanks bodies of delivered mails still holding one (written before bodies were dropped on delivery). */
  purgeDeliveredBodies(): Promise<number> {
    return this.deps.outbox.blankDeliveredBodies();
  }

  private async transportFor(settings: SmtpSettings): Promise<MailTransport> {
    return this.deps.transportFor ? this.deps.transportFor(settings) : SmtpTransport.create(settings);
  }

  private async runPass(): Promise<number> {
    let handled = 0;
    try {
      const now = this.deps.clock.now();
      const ids = await this.deps.outbox.findDueIds(now.toISOString(), 50);
      if (ids.length === 0) return 0;
      const smtp = smtpSettingsFrom(await this.deps.settings.getCategory('smtp'));
      const transport = smtp ? await this.transportFor(smtp) : undefined;
      try {
        for (const id of ids) {
          const entry = await this.deps.outbox.claim(
            id,
            now.toISOString(),
            new Date(now.getTime() + LOCK_MS).toISOString(),
          );
          if (!entry) continue;
          handled += 1;
          await this.deliver(entry, transport);
        }
      } finally {
        if (transport instanceof SmtpTransport) transport.close();
      }
    } catch (error) {
      this.deps.logger.error({ err: error }, 'mail worker pass failed');
    }
    return handled;
  }

  private async deliver(entry: OutboxRow, transport: MailTransport | undefined): Promise<void> {
    const now = this.deps.clock.now();
    if (!transport) {
      const links = extractLinks(entry.body_text);
      this.deps.logger.info(
        { to: entry.to_address, subject: entry.subject, links },
        `[outbox] email pour ${entry.to_address} : ${entry.subject}${links.length ? ` — liens : ${links.join(' ')}` : ''}`,
      );
      await this.deps.outbox.update(entry.id, {
        status: 'logged',
        sent_at: now.toISOString(),
        locked_until: null,
        ...DELIVERED_BODIES,
      });
      this.deps.onOutcome?.('logged');
      return;
    }
    try {
      await transport.send({
        to: entry.to_address,
        subject: entry.subject,
        html: entry.body_html,
        text: entry.body_text,
      });
      await this.deps.outbox.update(entry.id, {
        status: 'sent',
        sent_at: this.deps.clock.now().toISOString(),
        attempts: entry.attempts + 1,
        locked_until: null,
        last_error: null,
        ...DELIVERED_BODIES,
      });
      this.deps.onOutcome?.('sent');
    } catch (error) {
      const attempts = entry.attempts + 1;
      const message = error instanceof Error ? error.message : String(error);
      const finalFailure = attempts >= MAX_SEND_ATTEMPTS;
      this.deps.onOutcome?.(finalFailure ? 'failed' : 'retry');
      await this.deps.outbox.update(entry.id, {
        status: finalFailure ? 'failed' : 'pending',
        attempts,
        last_error: message.slice(0, 1000),
        locked_until: null,
        next_attempt_at: new Date(now.getTime() + retryDelayMs(attempts)).toISOString(),
      });
      await this.deps.systemLog.write({
        level: finalFailure ? 'error' : 'warning',
        category: 'email',
        message: finalFailure
          ? `Échec définitif de l'envoi de l'email à ${entry.to_address}`
          : `Échec de l'envoi de l'email à ${entry.to_address} (tentative ${attempts}/${MAX_SEND_ATTEMPTS})`,
        details: { subject: entry.subject, error: message, template: entry.template_name },
      });
    }
  }
}
