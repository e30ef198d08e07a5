import qrcode from 'qrcode-generator';

/**
 * « Vérifié » by QR code (issue 24): a member's page shows a QR code of its safety number; another
 * member scans it with its camera instead of reading 30 digits aloud. The code says which Ring and
 * member it is about and the safety number of the keys that member's own browser holds; it is
 * public information (no secret), and it proves nothing by itself — what counts is that the
 * scanned number equals the one the scanner's log names for that member.
 */

const PREFIX = 'SECURERING-VERIFY:1';

/** What the QR code of `memberId` in `ringId` carries (its safety number, digits only). */
export function verificationPayload(ringId: string, memberId: string, fingerprint: string): string {
  return [PREFIX, ringId, memberId, fingerprint.replace(/\s+/g, '')].join(':');
}

export interface VerificationCode {
  ringId: string;
  memberId: string;
  /** The 30 digits of the safety number, without spaces. */
  digits: string;
}

/** Reads a scanned text; null when it is not a SecureRing verification code. */
export function readVerificationPayload(text: string): VerificationCode | null {
  const parts = text.split(':');
  if (parts.length !== 5 || `${parts[0]}:${parts[1]}` !== PREFIX) return null;
  const [, , ringId, memberId, digits] = parts as [string, string, string, string, string];
  if (!ringId || !memberId || !/^\d{30}$/.test(digits)) return null;
  return { ringId, memberId, digits };
}

/**
 * What a scanned code means for « Vérifier {username} »: `match` (same Ring, same member, the
 * safety number this browser's log names for it), `other_member` (someone else's code),
 * `mismatch` (this member, other keys: someone may be in between), `invalid` (not such a code).
 */
export function scanOutcome(
  scanned: string,
  expected: { ringId: string; memberId: string; fingerprint: string },
): 'match' | 'other_member' | 'mismatch' | 'invalid' {
  const code = readVerificationPayload(scanned);
  if (!code || code.ringId !== expected.ringId) return 'invalid';
  if (code.memberId !== expected.memberId) return 'other_member';
  return code.digits === expected.fingerprint.replace(/\s+/g, '') ? 'match' : 'mismatch';
}

/** The QR code's modules (true: dark), error correction M, smallest version that fits. */
export function qrModules(payload: string): boolean[][] {
  const code = qrcode(0, 'M');
  code.addData(payload);
  code.make();
  const size = code.getModuleCount();
  return Array.from({ length: size }, (_, row) =>
    Array.from({ length: size }, (_, col) => code.isDark(row, col)),
  );
}
