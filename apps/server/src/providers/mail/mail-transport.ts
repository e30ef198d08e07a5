import type * as Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  html: string;
  text: string;
}

export interface SmtpSettings {
  host: string;
  port: number;
  username: string;
  password: string;
  encryption: 'tls' | 'ssl' | 'none';
  fromEmail: string;
  fromName: string;
}

/** Delivers one mail or throws; retries are the caller's business. */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
}

/** Reads the stored smtp category; undefined means "no SMTP configured", i.e. the log outbox. */
export function smtpSettingsFrom(values: Record<string, string>): SmtpSettings | undefined {
  const host = values.host?.trim();
  if (!host) return undefined;
  const encryption = values.encryption === 'ssl' || values.encryption === 'none' ? values.encryption : 'tls';
  return {
    host,
    port: Number(values.port) || (encryption === 'ssl' ? 465 : 587),
    username: values.username ?? '',
    password: values.password ?? '',
    encryption,
    fromEmail: values.from_email || 'no-reply@securering.fr',
    fromName: values.from_name || 'SecureRing',
  };
}

/**
 * nodemailer (about 3 MiB of heap) is loaded when the first SMTP transport is made, so an instance
 * without SMTP (mails in the log) never loads it (issue 30's memory budget). One promise.
 */
let nodemailerModule: Promise<typeof Nodemailer> | undefined;
const loadNodemailer = (): Promise<typeof Nodemailer> => (nodemailerModule ??= import('nodemailer'));

export class SmtpTransport implements MailTransport {
  /** A transport for these settings, nodemailer loaded first (see loadNodemailer). */
  static async create(settings: SmtpSettings): Promise<SmtpTransport> {
    return new SmtpTransport(settings, await loadNodemailer());
  }

  private readonly transporter: Transporter;

  private constructor(
    private readonly settings: SmtpSettings,
    nodemailer: typeof Nodemailer,
  ) {
    this.transporter = nodemailer.createTransport({
      host: settings.host,
      port: settings.port,
      // ssl: TLS from the first byte; tls: STARTTLS when offered; none: plain (local relays only).
      secure: settings.encryption === 'ssl',
      ignoreTLS: settings.encryption === 'none',
      auth: settings.username ? { user: settings.username, pass: settings.password } : undefined,
      connectionTimeout: 15_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  }

  async send(mail: OutgoingMail): Promise<void> {
    await this.transporter.sendMail({
      from: { name: this.settings.fromName, address: this.settings.fromEmail },
      to: mail.to,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
    });
  }

  close(): void {
    this.transporter.close();
  }
}
