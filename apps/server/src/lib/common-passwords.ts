import { ACCOUNT_MESSAGES } from '@securering/contract';
import { badRequest } from './app-error';
import list from './common-passwords.json';

/**
 * Passwords at the top of public leak lists (international and French: 123456…, password,
 * azerty, motdepasse, soleil…, with the usual digit, "!" and year endings). Entries shorter than
 * 8 characters are left out: the length rule already refuses them. The list stays on the server
 * (≈ 6,000 entries); the web shows the server's message.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set(list.map((p) => p.toLowerCase()));

/** True when the password is on the list, whatever its case or surrounding spaces. */
export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.trim().toLowerCase());
}

/** Refuses a new password (customer, Ring member or admin) that is on the list, in French. */
export function assertNotCommonPassword(password: string | undefined): void {
  if (password !== undefined && isCommonPassword(password)) throw badRequest(ACCOUNT_MESSAGES.passwordCommon);
}
