import { SmtpCatcher } from '../../apps/server/test/smtp-catcher';
import { adminLogin, saveSettings } from './api';

export { SmtpCatcher };

/** Starts a real SMTP server and points the running SecureRing at it through the admin API. */
export async function connectMailbox(baseUrl: string): Promise<SmtpCatcher> {
  const catcher = await new SmtpCatcher().start();
  const token = await adminLogin(baseUrl);
  await saveSettings(baseUrl, token, 'smtp', catcher.settings());
  return catcher;
}

/** The first link of a mail's text that contains `path`. */
export function linkIn(text: string, path: string): string {
  const match = new RegExp(`https?://[^\\s]*${path.replace(/[/?]/g, (c) => `\\${c}`)}[^\\s]*`).exec(text);
  if (!match) throw new Error(`No ${path} link in mail:\n${text}`);
  return match[0];
}
