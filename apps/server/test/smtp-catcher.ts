import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface CaughtMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * A real SMTP server on a free loopback port that keeps every message it receives, so tests read
 * mails exactly as a mailbox would.
 */
export class SmtpCatcher {
  readonly messages: CaughtMail[] = [];
  private waiters: Array<{ match: (m: CaughtMail) => boolean; resolve: (m: CaughtMail) => void }> = [];
  private server: SMTPServer;
  /** When set, the next N deliveries are refused with a temporary error. */
  failNext = 0;
  port = 0;

  constructor(private readonly auth?: { user: string; pass: string }) {
    this.server = new SMTPServer({
      secure: false,
      disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !auth,
      allowInsecureAuth: true,
      logger: false,
      onAuth: (a, _session, callback) => {
        if (auth && a.username === auth.user && a.password === auth.pass)
          callback(null, { user: a.username });
        else callback(new Error('Authentification refusée'));
      },
      onData: (stream, _session, callback) => {
        if (this.failNext > 0) {
          this.failNext -= 1;
          stream.resume();
          stream.on('end', () => {
            const error = new Error('Boîte temporairement indisponible') as Error & { responseCode: number };
            error.responseCode = 451;
            callback(error);
          });
          return;
        }
        simpleParser(stream)
          .then((parsed) => {
            const to = Array.isArray(parsed.to)
              ? parsed.to.map((a) => a.text).join(', ')
              : (parsed.to?.text ?? '');
            const mail: CaughtMail = {
              to,
              from: parsed.from?.text ?? '',
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
            };
            this.messages.push(mail);
            this.waiters = this.waiters.filter((w) => {
              if (!w.match(mail)) return true;
              w.resolve(mail);
              return false;
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** Resolves with the first message (already received or to come) matching the predicate. */
  waitFor(match: (m: CaughtMail) => boolean, timeoutMs = 10_000): Promise<CaughtMail> {
    const existing = this.messages.find(match);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('Aucun email reçu à temps')), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** The smtp settings that point SecureRing at this catcher. */
  settings(): Record<string, string> {
    return {
      host: '127.0.0.1',
      port: String(this.port),
      username: this.auth?.user ?? '',
      password: this.auth?.pass ?? '',
      encryption: 'none',
      from_email: 'no-reply@securering.test',
      from_name: 'SecureRing Test',
    };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
