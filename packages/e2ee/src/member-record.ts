import {
  type Bytes,
  assertWireId,
  concatBytes,
  encodeFields,
  fromBase64,
  fromHex,
  randomBytes,
  toBase64,
  toHex,
  utf8Encode,
} from './encoding';
import { E2eeError } from './errors';
import { type Identity, IDENTITY_KEYS_BYTES, exportIdentityKeys, importIdentityKeys } from './identity';
import {
  DEFAULT_KDF_ITERATIONS,
  LEGACY_KDF_ITERATIONS,
  MAX_KDF_ITERATIONS,
  MIN_PASSPHRASE_LENGTH,
} from './levels';

/**
 * A member's key record as the server stores it (spec field names). The passphrase derives a key
 * (PBKDF2-SHA-256, `kdf_iters` iterations, 16-byte `kdf_salt_b64`) that encrypts the identity keys
 * with AES-256-GCM: `iv_b64` is the 12-byte IV, `wrapped_dek` the ciphertext without its tag, and
 * `hmac_hex` the 16-byte GCM tag, the integrity tag the spec expects in that field. The associated
 * data binds the record to its format version and to the member id.
 */
export interface MemberKeyRecord {
  kdf_salt_b64: string;
  kdf_iters: number;
  wrapped_dek: string;
  iv_b64: string;
  hmac_hex: string;
}

const RECORD_FORMAT = 'securering/member-key/v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const subtle = () => globalThis.crypto.subtle;

/** Passphrases are NFC-normalized, so the same phrase typed on any system derives the same key. */
function passphraseBytes(passphrase: string): Bytes {
  return utf8Encode(passphrase.normalize('NFC'));
}

/** PBKDF2-SHA-256 → a non-extractable AES-256-GCM key encryption key. */
export async function deriveKek(passphrase: string, salt: Bytes, iterations: number): Promise<CryptoKey> {
  const material = await subtle().importKey('raw', passphraseBytes(passphrase), 'PBKDF2', false, [
    'deriveKey',
  ]);
  return subtle().deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

function recordAad(memberId: string): Bytes {
  return encodeFields(RECORD_FORMAT, memberId);
}

/**
 * Checks a new passphrase and its confirmation; returns the French error to show, or undefined.
 */
export function validateNewPassphrase(passphrase: string, confirmation: string): string | undefined {
  if ([...passphrase.normalize('NFC')].length < MIN_PASSPHRASE_LENGTH) {
    return `La phrase secrète doit contenir au moins ${MIN_PASSPHRASE_LENGTH} caractères`;
  }
  if (passphrase !== confirmation) return 'Les phrases secrètes ne correspondent pas';
  return undefined;
}

function isIterationCount(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= LEGACY_KDF_ITERATIONS &&
    value <= MAX_KDF_ITERATIONS
  );
}

function decodes(text: unknown, decode: (text: string) => Bytes, length: number): boolean {
  if (typeof text !== 'string') return false;
  try {
    return decode(text).length === length;
  } catch {
    return false;
  }
}

/**
 * Pure shape check of a member key record (sizes, base64, hex, iteration bounds), which the server
 * can mirror before storing one. Returns a French error naming the field, or undefined.
 * Other properties (ids, dates) are ignored.
 */
export function validateRecordShape(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null) return 'Enregistrement de clé invalide';
  const r = record as Record<string, unknown>;
  const invalid = (field: keyof MemberKeyRecord) => `Enregistrement de clé invalide (${field})`;
  if (!decodes(r.kdf_salt_b64, fromBase64, SALT_BYTES)) return invalid('kdf_salt_b64');
  if (!isIterationCount(r.kdf_iters)) return invalid('kdf_iters');
  if (!decodes(r.wrapped_dek, fromBase64, IDENTITY_KEYS_BYTES)) return invalid('wrapped_dek');
  if (!decodes(r.iv_b64, fromBase64, IV_BYTES)) return invalid('iv_b64');
  if (!decodes(r.hmac_hex, fromHex, TAG_BYTES)) return invalid('hmac_hex');
  return undefined;
}

function assertRecordShape(record: MemberKeyRecord): void {
  const problem = validateRecordShape(record);
  if (problem) throw new E2eeError('invalid_format', problem);
}

function assertIterations(iterations: number): void {
  if (!isIterationCount(iterations)) {
    throw new E2eeError(
      'invalid_format',
      `iterations must be an integer from ${LEGACY_KDF_ITERATIONS} to ${MAX_KDF_ITERATIONS}`,
    );
  }
}

async function sealKeys(
  keys: Bytes,
  passphrase: string,
  memberId: string,
  iterations: number,
): Promise<MemberKeyRecord> {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const kek = await deriveKek(passphrase, salt, iterations);
  const sealed = new Uint8Array(
    await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: recordAad(memberId) }, kek, keys),
  );
  return {
    kdf_salt_b64: toBase64(salt),
    kdf_iters: iterations,
    wrapped_dek: toBase64(sealed.subarray(0, sealed.length - TAG_BYTES)),
    iv_b64: toBase64(iv),
    hmac_hex: toHex(sealed.subarray(sealed.length - TAG_BYTES)),
  };
}

async function openKeys(record: MemberKeyRecord, passphrase: string, memberId: string): Promise<Bytes> {
  assertRecordShape(record);
  assertWireId(memberId, 'memberId');
  const kek = await deriveKek(passphrase, fromBase64(record.kdf_salt_b64), record.kdf_iters);
  try {
    const sealed = concatBytes(fromBase64(record.wrapped_dek), fromHex(record.hmac_hex));
    const iv = fromBase64(record.iv_b64);
    return new Uint8Array(
      await subtle().decrypt({ name: 'AES-GCM', iv, additionalData: recordAad(memberId) }, kek, sealed),
    );
  } catch {
    // A wrong passphrase and an altered record are indistinguishable: both fail the GCM tag.
    throw new E2eeError('wrong_passphrase', 'member key record did not open');
  }
}

/**
 * Encrypts a freshly generated identity under a new passphrase (at least 12 characters, else
 * `weak_passphrase`) for `memberId`, with `iterations` PBKDF2 rounds (default 600,000).
 */
export async function sealIdentity(
  identity: Identity,
  passphrase: string,
  options: { memberId: string; iterations?: number },
): Promise<MemberKeyRecord> {
  const iterations = options.iterations ?? DEFAULT_KDF_ITERATIONS;
  if (validateNewPassphrase(passphrase, passphrase)) throw new E2eeError('weak_passphrase');
  assertWireId(options.memberId, 'memberId');
  assertIterations(iterations);
  const keys = await exportIdentityKeys(identity);
  try {
    return await sealKeys(keys, passphrase, options.memberId, iterations);
  } finally {
    keys.fill(0);
  }
}

/**
 * Unlocks a member key record. Any authentication failure (wrong passphrase, altered field, record
 * of another member) throws `wrong_passphrase`; there is no fallback key.
 */
export async function openIdentity(
  record: MemberKeyRecord,
  passphrase: string,
  options: { memberId: string },
): Promise<Identity> {
  const keys = await openKeys(record, passphrase, options.memberId);
  try {
    return await importIdentityKeys(keys);
  } finally {
    keys.fill(0);
  }
}

/** True when the record was sealed with fewer iterations than the target (e.g. older clients). */
export function recordNeedsUpgrade(record: MemberKeyRecord, targetIterations: number): boolean {
  return record.kdf_iters < targetIterations;
}

/**
 * Re-seals a record with `iterations` rounds, a new salt and a new IV (same passphrase, same keys).
 * Refuses to lower the iteration count.
 */
export async function upgradeRecord(
  record: MemberKeyRecord,
  passphrase: string,
  options: { memberId: string; iterations: number },
): Promise<MemberKeyRecord> {
  assertIterations(options.iterations);
  if (options.iterations < record.kdf_iters) {
    throw new E2eeError('invalid_format', 'an upgrade never lowers the iteration count');
  }
  const keys = await openKeys(record, passphrase, options.memberId);
  try {
    return await sealKeys(keys, passphrase, options.memberId, options.iterations);
  } finally {
    keys.fill(0);
  }
}
