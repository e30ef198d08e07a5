import {
  createCipheriv,
  createDecipheriv,
  randomBytes,
  scrypt as scryptCallback,
  type ScryptOptions,
} from 'node:crypto';

/**
 * Encryption of the secret settings inside a backup: AES-256-GCM with a key derived from the
 * operator's BACKUP_ENCRYPTION_KEY by scrypt and a random salt per archive (kept in the manifest).
 * Each value is bound to its setting name (additional data), so values cannot be swapped.
 */

/** scrypt cost: N = 2^15, r = 8, p = 1 (32 MiB, about 0.1 s) — once per backup or restore. */
const SCRYPT: ScryptOptions = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SALT_BYTES = 16;
/** Prefix of an encrypted value in db/settings.jsonl. */
export const ENVELOPE_PREFIX = 'srenc:v1:';
/** What the manifest's key check encrypts: a wrong key is told apart before any row is read. */
const KEY_CHECK = { aad: 'securering-backup:key-check', text: 'securering-backup' } as const;

function scrypt(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_BYTES, SCRYPT, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** The archive key from the operator's passphrase and the archive's salt. */
export function deriveBackupKey(passphrase: string, salt: Buffer): Promise<Buffer> {
  return scrypt(passphrase, salt);
}

export const newBackupSalt = (): Buffer => randomBytes(SALT_BYTES);

/** The additional data of one setting's value. */
export const settingAad = (category: string, key: string): string =>
  `securering-backup:setting:${category}.${key}`;

export function isEnvelope(value: string): boolean {
  return value.startsWith(ENVELOPE_PREFIX);
}

/** `srenc:v1:` + base64url(iv ‖ ciphertext ‖ tag). */
export function encryptValue(key: Buffer, aad: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${ENVELOPE_PREFIX}${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
}

/** The plaintext, or undefined when the key, the setting name or the bytes do not match. */
export function decryptValue(key: Buffer, aad: string, envelope: string): string | undefined {
  if (!isEnvelope(envelope)) return undefined;
  const raw = Buffer.from(envelope.slice(ENVELOPE_PREFIX.length), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}

export const keyCheckOf = (key: Buffer): string => encryptValue(key, KEY_CHECK.aad, KEY_CHECK.text);

/** True when the key opens the archive's key check. */
export const keyMatches = (key: Buffer, check: string): boolean =>
  decryptValue(key, KEY_CHECK.aad, check) === KEY_CHECK.text;
