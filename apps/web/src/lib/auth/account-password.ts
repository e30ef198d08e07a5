/**
 * The account passwords this page has seen at sign-in (Ring login, invitation, customer login),
 * kept so the passphrase dialog can refuse a passphrase equal to one of them (review M1: the server
 * sees account passwords, so such a passphrase is no secret from it). Only an HMAC-SHA-256 under a
 * random, non-extractable key made for this page is kept, in memory: nothing is stored or sent,
 * and a reload forgets it (the dialog then cannot compare, see docs/SECURITY.md).
 */
let hmacKey: Promise<CryptoKey> | null = null;
const seen: Uint8Array[] = [];
const MAX_SEEN = 4;

function pageKey(): Promise<CryptoKey> {
  hmacKey ??= globalThis.crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return hmacKey;
}

async function digest(text: string): Promise<Uint8Array> {
  const bytes = new TextEncoder().encode(text.normalize('NFC'));
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', await pageKey(), bytes));
}

/** Called at a successful sign-in with the password the person typed. */
export async function rememberAccountPassword(password: string): Promise<void> {
  if (!password || !globalThis.crypto?.subtle) return;
  try {
    seen.unshift(await digest(password));
    seen.length = Math.min(seen.length, MAX_SEEN);
  } catch {
    // Without WebCrypto the room cannot unlock anyway.
  }
}

/** True when `candidate` is an account password this page saw at sign-in (NFC-normalized). */
export async function isAccountPassword(candidate: string): Promise<boolean> {
  if (seen.length === 0 || !candidate) return false;
  const mine = await digest(candidate);
  return seen.some((other) => other.length === mine.length && other.every((byte, i) => byte === mine[i]));
}

/** Forgets every password seen (sign-out). */
export function forgetAccountPasswords(): void {
  seen.length = 0;
}
