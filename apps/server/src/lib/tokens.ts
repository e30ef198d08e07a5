import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** An opaque bearer token: 256 random bits, URL-safe. Only its hash is ever stored. */
export function newToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings of possibly different length. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}

const INVITE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/**
 * A human-typable invite code (no 0/O/1/I), 16 characters from a 32-symbol alphabet: 80 bits,
 * far beyond guessing even with the login rate limits removed.
 */
export function newInviteCode(length = 16): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += INVITE_ALPHABET[(bytes[i] ?? 0) & 31];
  return out;
}
