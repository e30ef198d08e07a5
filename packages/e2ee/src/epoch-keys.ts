import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import {
  type Bytes,
  assertExactKeys,
  assertWireId,
  concatBytes,
  encodeFields,
  randomBytes,
  readBase64Field,
  toBase64,
} from './encoding';
import { E2eeError } from './errors';
import { importAgreementPublicKey, importVerifyKey } from './identity';
import { LEVEL_PARAMETERS, type SecurityLevel, isSecurityLevel } from './levels';
import { SIGNATURE_BYTES, signDetached, verifyDetached } from './signing';

/** Size of the Ring names key and of the military inner-layer key. */
const KEY_256_BYTES = 32;
const HPKE_ENC_BYTES = 32;
const AEAD_TAG_BYTES = 16;
const SHARE_DOMAIN = 'securering/epoch-key-share/v1';
const SHARE_DOMAIN_V2 = 'securering/epoch-key-share/v2';
const SHARE_FIELDS = [
  'v',
  'ringId',
  'epoch',
  'level',
  'recipientMemberId',
  'senderMemberId',
  'enc',
  'ct',
  'sig',
] as const;
const SHARE_FIELDS_V2 = [...SHARE_FIELDS, 'logSeq', 'logHash', 'epochLogSeq'] as const;

// RFC 9180 base mode: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-256-GCM.
const hpke = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes256Gcm(),
});

/**
 * The Ring key of one epoch, in memory. `messageKey` (AES-GCM, 128 or 256 bits by level) and
 * `innerKey` (military only: the independent AES-256-GCM key of the second layer) are
 * non-extractable CryptoKeys for use. `material` keeps the raw bytes (message key ‖ names key ‖
 * inner key) because a member must be able to re-wrap the epoch for members who join later: keep
 * EpochKey objects in memory only, never in storage or logs. `namesKey` is the Ring's raw names
 * key (constant across epochs), used by names.ts.
 */
export interface EpochKey {
  readonly ringId: string;
  readonly epoch: number;
  readonly level: SecurityLevel;
  readonly messageKey: CryptoKey;
  readonly innerKey?: CryptoKey;
  readonly namesKey: Bytes;
  readonly material: Bytes;
  /**
   * Set only on a private conversation's key (`deriveConversationKey`): the one conversation it
   * may encrypt. Such a key is never wrapped for anyone.
   */
  readonly conversationId?: string;
  /**
   * Seq of the Ring's membership log head when this epoch was created (membership-log.ts), as its
   * creator signed it in every share; undefined for an epoch from before the log (share v1), which
   * is readable but never used to send again.
   */
  readonly logSeq?: number;
}

/**
 * One epoch key encrypted (HPKE) for one member and signed (Ed25519) by the member who sent it.
 * Version 2 binds the Ring's membership log: `logSeq`/`logHash` name the log head the sender
 * signed at (its key must be its current one there, the recipient a member there), and
 * `epochLogSeq` the head when the epoch was created. Version 1 (before the log) has neither.
 */
export type EpochKeyShare = EpochKeyShareV1 | EpochKeyShareV2;

export interface EpochKeyShareV2 extends Omit<EpochKeyShareV1, 'v'> {
  v: 2;
  logSeq: number;
  /** Hex SHA-256 of the log link at `logSeq`. */
  logHash: string;
  epochLogSeq: number;
}

export interface EpochKeyShareV1 {
  v: 1;
  ringId: string;
  epoch: number;
  level: SecurityLevel;
  recipientMemberId: string;
  senderMemberId: string;
  /** HPKE encapsulated key, base64 (32 bytes). */
  enc: string;
  /** HPKE ciphertext of the key material, base64. */
  ct: string;
  /** Ed25519 signature over the context, enc and ct, base64 (64 bytes). */
  sig: string;
}

function materialBytes(level: SecurityLevel): number {
  const { keyBytes, doubleLayer } = LEVEL_PARAMETERS[level];
  return keyBytes + KEY_256_BYTES + (doubleLayer ? KEY_256_BYTES : 0);
}

/** Epoch numbers start at 1 and fit in 32 bits. */
export function isEpochNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 0xffff_ffff;
}

function importAesKey(raw: Bytes): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

async function epochKeyFromMaterial(
  context: { ringId: string; epoch: number; level: SecurityLevel },
  material: Bytes,
): Promise<EpochKey> {
  const { keyBytes, doubleLayer } = LEVEL_PARAMETERS[context.level];
  if (material.length !== materialBytes(context.level)) {
    throw new E2eeError('unverifiable', 'epoch key material has the wrong size');
  }
  const namesEnd = keyBytes + KEY_256_BYTES;
  return {
    ...context,
    messageKey: await importAesKey(material.slice(0, keyBytes)),
    innerKey: doubleLayer ? await importAesKey(material.slice(namesEnd)) : undefined,
    namesKey: material.slice(keyBytes, namesEnd),
    material,
  };
}

/**
 * Creates the key of a new epoch in the browser: fresh random AES key(s) sized by the level, and
 * the Ring names key of the previous epoch when given (it never changes), else a new one.
 */
export async function generateEpochKey(options: {
  ringId: string;
  epoch: number;
  level: SecurityLevel;
  namesKey?: Uint8Array;
  /** The membership log head's seq now (the epoch's creation point). */
  logSeq?: number;
}): Promise<EpochKey> {
  const { ringId, epoch, level, namesKey, logSeq } = options;
  if (logSeq !== undefined && !isLogSeq(logSeq)) throw new E2eeError('invalid_format', 'logSeq');
  assertWireId(ringId, 'ringId');
  if (!isEpochNumber(epoch)) throw new E2eeError('invalid_format', 'epoch must be an integer ≥ 1');
  if (!isSecurityLevel(level)) throw new E2eeError('invalid_format', 'unknown security level');
  if (namesKey !== undefined && namesKey.length !== KEY_256_BYTES) {
    throw new E2eeError('invalid_format', 'the names key has 32 bytes');
  }
  const { keyBytes, doubleLayer } = LEVEL_PARAMETERS[level];
  const material = concatBytes(
    randomBytes(keyBytes),
    namesKey ?? randomBytes(KEY_256_BYTES),
    doubleLayer ? randomBytes(KEY_256_BYTES) : new Uint8Array(0),
  );
  const key = await epochKeyFromMaterial({ ringId, epoch, level }, material);
  return logSeq === undefined ? key : { ...key, logSeq };
}

function isLogSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 1e9;
}

type ShareHeader = Omit<EpochKeyShareV1, 'enc' | 'ct' | 'sig'> | Omit<EpochKeyShareV2, 'enc' | 'ct' | 'sig'>;

function shareDomain(share: ShareHeader): string {
  return share.v === 2 ? SHARE_DOMAIN_V2 : SHARE_DOMAIN;
}

function shareContext(share: ShareHeader): Bytes {
  const base = [
    shareDomain(share),
    share.ringId,
    String(share.epoch),
    share.level,
    share.recipientMemberId,
    share.senderMemberId,
  ];
  if (share.v === 1) return encodeFields(...base);
  return encodeFields(...base, String(share.logSeq), share.logHash, String(share.epochLogSeq));
}

/**
 * Encrypts an epoch key for one member (HPKE to their X25519 key, the canonical context as info
 * and associated data) and signs the result with the sender's Ed25519 key. With `log` (the
 * membership log head the sender verified) the share is version 2 and binds it, and the epoch's
 * creation point (`epochKey.logSeq`, required then); without, version 1.
 */
export async function wrapEpochKeyFor(
  epochKey: EpochKey,
  recipient: { memberId: string; x25519PublicB64: string },
  sender: { memberId: string; signingPrivateKey: CryptoKey },
  log?: { seq: number; hash: string },
): Promise<EpochKeyShare> {
  assertWireId(recipient.memberId, 'recipient.memberId');
  assertWireId(sender.memberId, 'sender.memberId');
  if (epochKey.conversationId !== undefined) {
    throw new E2eeError('invalid_format', 'a private conversation key is never shared');
  }
  const base = {
    ringId: epochKey.ringId,
    epoch: epochKey.epoch,
    level: epochKey.level,
    recipientMemberId: recipient.memberId,
    senderMemberId: sender.memberId,
  };
  let header: ShareHeader;
  if (log) {
    if (!isLogSeq(log.seq) || !/^[0-9a-f]{64}$/.test(log.hash))
      throw new E2eeError('invalid_format', 'membership log head');
    if (epochKey.logSeq === undefined || epochKey.logSeq > log.seq)
      throw new E2eeError('invalid_format', 'an epoch from before the membership log is not shared with it');
    header = { v: 2, ...base, logSeq: log.seq, logHash: log.hash, epochLogSeq: epochKey.logSeq };
  } else {
    header = { v: 1, ...base };
  }
  const context = shareContext(header);
  const recipientPublicKey = await importAgreementPublicKey(recipient.x25519PublicB64);
  const { enc, ct } = await hpke
    .seal({ recipientPublicKey, info: context }, epochKey.material, context)
    .catch(() => {
      // e.g. a low-order point, whose X25519 shared secret is all zeros.
      throw new E2eeError('invalid_format', 'the recipient key is not a usable X25519 key');
    });
  const encBytes = new Uint8Array(enc);
  const ctBytes = new Uint8Array(ct);
  const sig = await signDetached(
    sender.signingPrivateKey,
    shareDomain(header),
    encodeFields(context, encBytes, ctBytes),
  );
  return { ...header, enc: toBase64(encBytes), ct: toBase64(ctBytes), sig: toBase64(sig) } as EpochKeyShare;
}

function readShare(value: unknown): { share: EpochKeyShare; enc: Bytes; ct: Bytes; sig: Bytes } {
  const version = (value as { v?: unknown } | null)?.v;
  assertExactKeys(value, version === 2 ? SHARE_FIELDS_V2 : SHARE_FIELDS, 'epoch key share');
  const { v, ringId, epoch, level, recipientMemberId, senderMemberId } = value;
  if (v !== 1 && v !== 2) throw new E2eeError('invalid_format', 'epoch key share: unknown version');
  assertWireId(ringId, 'ringId');
  assertWireId(recipientMemberId, 'recipientMemberId');
  assertWireId(senderMemberId, 'senderMemberId');
  if (!isEpochNumber(epoch)) throw new E2eeError('invalid_format', 'epoch key share: epoch');
  if (!isSecurityLevel(level)) throw new E2eeError('invalid_format', 'epoch key share: level');
  const enc = readBase64Field(value.enc, 'enc', HPKE_ENC_BYTES);
  const ct = readBase64Field(value.ct, 'ct', materialBytes(level) + AEAD_TAG_BYTES);
  const sig = readBase64Field(value.sig, 'sig', SIGNATURE_BYTES);
  const common = {
    ringId,
    epoch,
    level,
    recipientMemberId,
    senderMemberId,
    enc: toBase64(enc),
    ct: toBase64(ct),
    sig: toBase64(sig),
  };
  if (v === 1) return { share: { v, ...common }, enc, ct, sig };
  const { logSeq, logHash, epochLogSeq } = value;
  if (!isLogSeq(logSeq) || !isLogSeq(epochLogSeq) || epochLogSeq > logSeq)
    throw new E2eeError('invalid_format', 'epoch key share: log position');
  if (typeof logHash !== 'string' || !/^[0-9a-f]{64}$/.test(logHash))
    throw new E2eeError('invalid_format', 'epoch key share: logHash');
  return { share: { v, ...common, logSeq, logHash, epochLogSeq }, enc, ct, sig };
}

/**
 * Strict shape check of a share (exact fields, types, sizes per level); throws `invalid_format`.
 * A server can use it to validate uploads without any key.
 */
export function parseEpochKeyShare(value: unknown): EpochKeyShare {
  return readShare(value).share;
}

/**
 * Opens a share addressed to me: checks it is for the expected Ring and for me, verifies the
 * sender's signature, then decrypts. Any mismatch or alteration throws `unverifiable`.
 */
export async function unwrapEpochKey(
  share: EpochKeyShare,
  me: { memberId: string; agreementKeyPair: CryptoKeyPair },
  senderEd25519PublicB64: string,
  expected: { ringId: string },
): Promise<EpochKey> {
  const { share: parsed, enc, ct, sig } = readShare(share);
  if (parsed.ringId !== expected.ringId || parsed.recipientMemberId !== me.memberId) {
    throw new E2eeError('unverifiable', 'epoch key share for another Ring or member');
  }
  const context = shareContext(parsed);
  const verifyKey = await importVerifyKey(senderEd25519PublicB64);
  if (!(await verifyDetached(verifyKey, shareDomain(parsed), encodeFields(context, enc, ct), sig))) {
    throw new E2eeError('unverifiable', 'epoch key share signature does not verify');
  }
  let material: Bytes;
  try {
    material = new Uint8Array(
      await hpke.open({ recipientKey: me.agreementKeyPair, enc, info: context }, ct, context),
    );
  } catch {
    throw new E2eeError('unverifiable', 'epoch key share does not open with my key');
  }
  const key = await epochKeyFromMaterial(
    { ringId: parsed.ringId, epoch: parsed.epoch, level: parsed.level },
    material,
  );
  return parsed.v === 2 ? { ...key, logSeq: parsed.epochLogSeq } : key;
}
