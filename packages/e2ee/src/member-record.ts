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
  type Argon2idParams,
  DEFAULT_ARGON2ID,
  LEGACY_KDF_ITERATIONS,
  MAX_ARGON2ID_ITERATIONS,
  MAX_ARGON2ID_MEMORY_KIB,
  MAX_KDF_ITERATIONS,
  MIN_ARGON2ID_MEMORY_KIB,
  MIN_PASSPHRASE_LENGTH,
} from './levels';
import { parseRecoveryKey } from './recovery-key';

/** Key derivation of a member key record: PBKDF2-SHA-256 (records before Argon2id) or Argon2id. */
export type RecordKdf = 'pbkdf2-sha256' | 'argon2id';

/**
 * The identity keys sealed a second time, under a key derived (HKDF-SHA-256, 16-byte `salt_b64`)
 * from the member's recovery key (« Clé de secours »), with AES-256-GCM as the main copy.
 */
export interface RecoveryCopy {
  salt_b64: string;
  wrapped_dek: string;
  iv_b64: string;
  hmac_hex: string;
}

/**
 * A member's key record as the server stores it (spec field names, plus `kdf`, `kdf_mem_kib` and
 * `recovery`). The passphrase derives a key that encrypts the identity keys with AES-256-GCM:
 * `iv_b64` is the 12-byte IV, `wrapped_dek` the ciphertext without its tag, and `hmac_hex` the
 * 16-byte GCM tag. `kdf` names the derivation: `argon2id` (`kdf_iters` passes over `kdf_mem_kib`
 * KiB, one lane, 16-byte `kdf_salt_b64`) for records sealed now; absent or `pbkdf2-sha256`
 * (`kdf_iters` PBKDF2-SHA-256 iterations) for older records, which still open and are re-sealed
 * with Argon2id at the next unlock. The associated data binds the record to its format version,
 * the member id and (Argon2id) the cost. `recovery`, when set, opens the same keys without the
 * passphrase.
 */
export interface MemberKeyRecord {
  kdf?: RecordKdf | undefined;
  kdf_salt_b64: string;
  kdf_iters: number;
  kdf_mem_kib?: number | null | undefined;
  wrapped_dek: string;
  iv_b64: string;
  hmac_hex: string;
  recovery?: RecoveryCopy | null | undefined;
}

const RECORD_FORMAT = 'securering/member-key/v1';
const RECORD_FORMAT_ARGON2ID = 'securering/member-key/v2';
const RECOVERY_FORMAT = 'securering/member-key-recovery/v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const subtle = () => globalThis.crypto.subtle;

/** Passphrases are NFC-normalized, so the same phrase typed on any system derives the same key. */
function passphraseBytes(passphrase: string): Bytes {
  return utf8Encode(passphrase.normalize('NFC'));
}

/** PBKDF2-SHA-256 → a non-extractable AES-256-GCM key encryption key (records before Argon2id). */
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

/**
 * Raw Argon2id (RFC 9106, version 0x13, one lane, 32-byte output) of an NFC-normalized passphrase.
 * hash-wasm (WebAssembly) is imported on first use, so the web app loads it only with the dialog.
 */
export async function argon2idBytes(passphrase: string, salt: Bytes, params: Argon2idParams): Promise<Bytes> {
  const { argon2id } = await import('hash-wasm');
  const out = await argon2id({
    password: passphraseBytes(passphrase),
    salt,
    parallelism: 1,
    iterations: params.iterations,
    memorySize: params.memoryKib,
    hashLength: 32,
    outputType: 'binary',
  });
  try {
    return new Uint8Array(out);
  } finally {
    out.fill(0);
  }
}

/** Argon2id → a non-extractable AES-256-GCM key encryption key. */
export async function deriveArgon2idKek(
  passphrase: string,
  salt: Bytes,
  params: Argon2idParams,
): Promise<CryptoKey> {
  const raw = await argon2idBytes(passphrase, salt, params);
  try {
    return await subtle().importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
  } finally {
    raw.fill(0);
  }
}

/**
 * HKDF-SHA-256 of the recovery key's 160 random bits → the AES-256-GCM key of the recovery copy.
 * A slow hash adds nothing against guessing a 160-bit random key; the salt and the member id keep
 * each copy's key distinct.
 */
async function deriveRecoveryKek(recoveryKey: Bytes, salt: Bytes, memberId: string): Promise<CryptoKey> {
  const material = await subtle().importKey('raw', recoveryKey, 'HKDF', false, ['deriveKey']);
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt, info: encodeFields(RECOVERY_FORMAT, memberId) },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

function isArgon2id(record: Pick<MemberKeyRecord, 'kdf'>): boolean {
  return record.kdf === 'argon2id';
}

function argon2idParamsOf(record: MemberKeyRecord): Argon2idParams {
  return { iterations: record.kdf_iters, memoryKib: record.kdf_mem_kib ?? 0 };
}

function recordAad(memberId: string, record?: MemberKeyRecord): Bytes {
  if (record && isArgon2id(record)) {
    return encodeFields(
      RECORD_FORMAT_ARGON2ID,
      memberId,
      'argon2id',
      String(record.kdf_iters),
      String(record.kdf_mem_kib),
    );
  }
  return encodeFields(RECORD_FORMAT, memberId);
}

/**
 * Checks a new passphrase and its confirmation; returns the French error to show, or undefined.
 * (Length only: the web app adds a strength estimate and the account-password check.)
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

function isArgon2idParams(params: { iterations: unknown; memoryKib: unknown }): boolean {
  const { iterations, memoryKib } = params;
  return (
    typeof iterations === 'number' &&
    Number.isInteger(iterations) &&
    iterations >= 1 &&
    iterations <= MAX_ARGON2ID_ITERATIONS &&
    typeof memoryKib === 'number' &&
    Number.isInteger(memoryKib) &&
    memoryKib >= MIN_ARGON2ID_MEMORY_KIB &&
    memoryKib <= MAX_ARGON2ID_MEMORY_KIB
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
 * Pure shape check of a member key record (KDF and its cost bounds, sizes, base64, hex, the
 * recovery copy), which the server mirrors before storing one: an Argon2id record below 64 MiB is
 * refused. Returns a French error naming the field, or undefined. Other properties are ignored.
 */
export function validateRecordShape(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null) return 'Enregistrement de clé invalide';
  const r = record as Record<string, unknown>;
  const invalid = (field: string) => `Enregistrement de clé invalide (${field})`;
  if (r.kdf !== undefined && r.kdf !== 'pbkdf2-sha256' && r.kdf !== 'argon2id') return invalid('kdf');
  if (!decodes(r.kdf_salt_b64, fromBase64, SALT_BYTES)) return invalid('kdf_salt_b64');
  if (r.kdf === 'argon2id') {
    if (!isArgon2idParams({ iterations: r.kdf_iters, memoryKib: MIN_ARGON2ID_MEMORY_KIB })) {
      return invalid('kdf_iters');
    }
    if (!isArgon2idParams({ iterations: 1, memoryKib: r.kdf_mem_kib })) return invalid('kdf_mem_kib');
  } else {
    if (!isIterationCount(r.kdf_iters)) return invalid('kdf_iters');
    if (r.kdf_mem_kib !== undefined && r.kdf_mem_kib !== null) return invalid('kdf_mem_kib');
  }
  if (!decodes(r.wrapped_dek, fromBase64, IDENTITY_KEYS_BYTES)) return invalid('wrapped_dek');
  if (!decodes(r.iv_b64, fromBase64, IV_BYTES)) return invalid('iv_b64');
  if (!decodes(r.hmac_hex, fromHex, TAG_BYTES)) return invalid('hmac_hex');
  if (r.recovery !== undefined && r.recovery !== null) {
    const c = r.recovery as Record<string, unknown>;
    if (
      typeof c !== 'object' ||
      !decodes(c.salt_b64, fromBase64, SALT_BYTES) ||
      !decodes(c.wrapped_dek, fromBase64, IDENTITY_KEYS_BYTES) ||
      !decodes(c.iv_b64, fromBase64, IV_BYTES) ||
      !decodes(c.hmac_hex, fromHex, TAG_BYTES)
    ) {
      return invalid('recovery');
    }
  }
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

function assertArgon2id(params: Argon2idParams): void {
  if (!isArgon2idParams(params)) {
    throw new E2eeError(
      'invalid_format',
      `Argon2id needs 1 to ${MAX_ARGON2ID_ITERATIONS} passes and ${MIN_ARGON2ID_MEMORY_KIB} to ${MAX_ARGON2ID_MEMORY_KIB} KiB`,
    );
  }
}

/** How to seal: PBKDF2 with `iterations` (older format, kept for tests and tools) or Argon2id. */
type SealKdf = { kind: 'pbkdf2'; iterations: number } | { kind: 'argon2id'; params: Argon2idParams };

function splitSealed(sealed: Uint8Array): { wrapped_dek: string; hmac_hex: string } {
  return {
    wrapped_dek: toBase64(sealed.subarray(0, sealed.length - TAG_BYTES)),
    hmac_hex: toHex(sealed.subarray(sealed.length - TAG_BYTES)),
  };
}

async function sealRecovery(keys: Bytes, recoveryKey: string, memberId: string): Promise<RecoveryCopy> {
  const key = parseRecoveryKey(recoveryKey);
  if (!key) throw new E2eeError('invalid_format', 'recovery key is not well formed');
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  try {
    const kek = await deriveRecoveryKek(key, salt, memberId);
    const sealed = new Uint8Array(
      await subtle().encrypt(
        { name: 'AES-GCM', iv, additionalData: encodeFields(RECOVERY_FORMAT, memberId) },
        kek,
        keys,
      ),
    );
    return { salt_b64: toBase64(salt), iv_b64: toBase64(iv), ...splitSealed(sealed) };
  } finally {
    key.fill(0);
  }
}

async function sealKeys(
  keys: Bytes,
  passphrase: string,
  memberId: string,
  kdf: SealKdf,
  recovery: RecoveryCopy | null,
): Promise<MemberKeyRecord> {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const head: MemberKeyRecord =
    kdf.kind === 'argon2id'
      ? {
          kdf: 'argon2id',
          kdf_salt_b64: toBase64(salt),
          kdf_iters: kdf.params.iterations,
          kdf_mem_kib: kdf.params.memoryKib,
          wrapped_dek: '',
          iv_b64: toBase64(iv),
          hmac_hex: '',
        }
      : {
          kdf_salt_b64: toBase64(salt),
          kdf_iters: kdf.iterations,
          wrapped_dek: '',
          iv_b64: toBase64(iv),
          hmac_hex: '',
        };
  const kek =
    kdf.kind === 'argon2id'
      ? await deriveArgon2idKek(passphrase, salt, kdf.params)
      : await deriveKek(passphrase, salt, kdf.iterations);
  const sealed = new Uint8Array(
    await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: recordAad(memberId, head) }, kek, keys),
  );
  return { ...head, ...splitSealed(sealed), ...(recovery ? { recovery } : {}) };
}

async function openKeys(record: MemberKeyRecord, passphrase: string, memberId: string): Promise<Bytes> {
  assertRecordShape(record);
  assertWireId(memberId, 'memberId');
  const salt = fromBase64(record.kdf_salt_b64);
  const kek = isArgon2id(record)
    ? await deriveArgon2idKek(passphrase, salt, argon2idParamsOf(record))
    : await deriveKek(passphrase, salt, record.kdf_iters);
  try {
    const sealed = concatBytes(fromBase64(record.wrapped_dek), fromHex(record.hmac_hex));
    const iv = fromBase64(record.iv_b64);
    return new Uint8Array(
      await subtle().decrypt(
        { name: 'AES-GCM', iv, additionalData: recordAad(memberId, record) },
        kek,
        sealed,
      ),
    );
  } catch {
    // A wrong passphrase and an altered record are indistinguishable: both fail the GCM tag.
    throw new E2eeError('wrong_passphrase', 'member key record did not open');
  }
}

async function openRecoveryKeys(
  record: MemberKeyRecord,
  recoveryKey: string,
  memberId: string,
): Promise<Bytes> {
  assertRecordShape(record);
  assertWireId(memberId, 'memberId');
  const copy = record.recovery;
  if (!copy) throw new E2eeError('missing_key', 'the record has no recovery copy');
  const key = parseRecoveryKey(recoveryKey);
  if (!key) throw new E2eeError('invalid_format', 'recovery key is not well formed');
  try {
    const kek = await deriveRecoveryKek(key, fromBase64(copy.salt_b64), memberId);
    const sealed = concatBytes(fromBase64(copy.wrapped_dek), fromHex(copy.hmac_hex));
    return new Uint8Array(
      await subtle().decrypt(
        {
          name: 'AES-GCM',
          iv: fromBase64(copy.iv_b64),
          additionalData: encodeFields(RECOVERY_FORMAT, memberId),
        },
        kek,
        sealed,
      ),
    );
  } catch {
    throw new E2eeError('wrong_passphrase', 'recovery copy did not open');
  } finally {
    key.fill(0);
  }
}

function sealKdfOf(options: {
  iterations?: number | undefined;
  argon2id?: Argon2idParams | undefined;
}): SealKdf {
  if (options.iterations !== undefined) {
    assertIterations(options.iterations);
    return { kind: 'pbkdf2', iterations: options.iterations };
  }
  const params = options.argon2id ?? DEFAULT_ARGON2ID;
  assertArgon2id(params);
  return { kind: 'argon2id', params };
}

/**
 * Encrypts a freshly generated identity under a new passphrase (at least 12 characters, else
 * `weak_passphrase`) for `memberId`: with Argon2id (`argon2id`, default 64 MiB × 2 passes), or with
 * PBKDF2 when `iterations` is given (the older format, for tests and tools). With `recoveryKey`
 * (from `generateRecoveryKey`), the record also holds a copy that the recovery key opens.
 */
export async function sealIdentity(
  identity: Identity,
  passphrase: string,
  options: { memberId: string; iterations?: number; argon2id?: Argon2idParams; recoveryKey?: string },
): Promise<MemberKeyRecord> {
  if (validateNewPassphrase(passphrase, passphrase)) throw new E2eeError('weak_passphrase');
  assertWireId(options.memberId, 'memberId');
  const kdf = sealKdfOf(options);
  const keys = await exportIdentityKeys(identity);
  try {
    const recovery = options.recoveryKey
      ? await sealRecovery(keys, options.recoveryKey, options.memberId)
      : null;
    return await sealKeys(keys, passphrase, options.memberId, kdf, recovery);
  } finally {
    keys.fill(0);
  }
}

async function importOpened(keys: Bytes): Promise<Identity> {
  try {
    return await importIdentityKeys(keys);
  } finally {
    keys.fill(0);
  }
}

/**
 * Unlocks a member key record (Argon2id or the older PBKDF2). Any authentication failure (wrong
 * passphrase, altered field, record of another member) throws `wrong_passphrase`; no fallback key.
 */
export async function openIdentity(
  record: MemberKeyRecord,
  passphrase: string,
  options: { memberId: string },
): Promise<Identity> {
  return importOpened(await openKeys(record, passphrase, options.memberId));
}

/**
 * Unlocks a member key record with its recovery key (« Clé de secours »): `missing_key` when the
 * record has no recovery copy, `invalid_format` for a malformed key, `wrong_passphrase` for a wrong
 * one (or an altered copy).
 */
export async function openIdentityWithRecoveryKey(
  record: MemberKeyRecord,
  recoveryKey: string,
  options: { memberId: string },
): Promise<Identity> {
  return importOpened(await openRecoveryKeys(record, recoveryKey, options.memberId));
}

/** True when the record was sealed with fewer PBKDF2 iterations than the target (older format). */
export function recordNeedsUpgrade(record: MemberKeyRecord, target: number | Argon2idParams): boolean {
  if (typeof target === 'number') return !isArgon2id(record) && record.kdf_iters < target;
  if (!isArgon2id(record)) return true;
  return record.kdf_iters < target.iterations || (record.kdf_mem_kib ?? 0) < target.memoryKib;
}

/** Whether `record` has a copy its recovery key opens. */
export function hasRecoveryCopy(record: MemberKeyRecord): boolean {
  return Boolean(record.recovery);
}

/**
 * Re-seals a record's keys (same identity) with a new salt and IV: opened with the passphrase or
 * the recovery key, sealed under `newPassphrase` (required after a recovery key) or the same one,
 * with Argon2id (`argon2id`, default cost) or PBKDF2 (`iterations`). `recoveryKey`: a new recovery
 * copy (string), none (null), or the record's current copy kept (undefined). Never lowers the cost.
 */
export async function resealRecord(
  record: MemberKeyRecord,
  secret: { passphrase: string } | { recoveryKey: string },
  options: {
    memberId: string;
    newPassphrase?: string;
    iterations?: number;
    argon2id?: Argon2idParams;
    recoveryKey?: string | null;
  },
): Promise<MemberKeyRecord> {
  const kdf = sealKdfOf(options);
  if (kdf.kind === 'pbkdf2' && (isArgon2id(record) || kdf.iterations < record.kdf_iters)) {
    throw new E2eeError('invalid_format', 'an upgrade never lowers the iteration count');
  }
  const passphrase = options.newPassphrase ?? ('passphrase' in secret ? secret.passphrase : undefined);
  if (passphrase === undefined) throw new E2eeError('weak_passphrase', 'a new passphrase is needed');
  if (options.newPassphrase !== undefined && validateNewPassphrase(passphrase, passphrase)) {
    throw new E2eeError('weak_passphrase');
  }
  const keys =
    'passphrase' in secret
      ? await openKeys(record, secret.passphrase, options.memberId)
      : await openRecoveryKeys(record, secret.recoveryKey, options.memberId);
  try {
    const recovery =
      options.recoveryKey === undefined
        ? (record.recovery ?? null)
        : options.recoveryKey === null
          ? null
          : await sealRecovery(keys, options.recoveryKey, options.memberId);
    return await sealKeys(keys, passphrase, options.memberId, kdf, recovery);
  } finally {
    keys.fill(0);
  }
}

/**
 * Re-seals a record under the same passphrase with `iterations` PBKDF2 rounds or the `argon2id`
 * cost, a new salt and a new IV (same keys, same recovery copy). Refuses to lower the cost.
 */
export async function upgradeRecord(
  record: MemberKeyRecord,
  passphrase: string,
  options: { memberId: string; iterations?: number; argon2id?: Argon2idParams },
): Promise<MemberKeyRecord> {
  return resealRecord(record, { passphrase }, options);
}
