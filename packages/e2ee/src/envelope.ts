import {
  type Bytes,
  assertExactKeys,
  assertWireId,
  checkBase64Field,
  concatBytes,
  encodeFields,
  randomBytes,
  readBase64Field,
  toBase64,
  toHex,
  utf8Decode,
  utf8Encode,
} from './encoding';
import { E2eeError } from './errors';
import { type EpochKey, isEpochNumber } from './epoch-keys';
import { SIGNATURE_BYTES, signDetached, verifyDetached } from './signing';

/**
 * Where a message stands in its sender's sequence (envelope v2, issue 27 M4), per conversation and
 * per sending browser (`stream`): signed, so a reader sees a message the server dropped (a counter
 * that jumps over a permanent message) or a sender that signed two different histories (a fork).
 */
export interface MessageChain {
  /** Random id of the sending browser's sequence (one per browser and member, kept across reloads). */
  stream: string;
  /** 1 for the stream's first message in this conversation, then +1 for each message. */
  counter: number;
  /** `messageHash` of the stream's previous message (64 zeros for counter 1). */
  prevHash: string;
  /** Counter of the stream's last permanent message before this one (0: none). */
  lastPermanent: number;
}

/** `prevHash` of a stream's first message. */
export const CHAIN_START_HASH = '0'.repeat(64);

/** What a message says about itself, readable by the server, authenticated by the keys. */
export interface MessageHeader {
  /** 1: legacy (no sequence); 2: with `chain` and an explicit lifetime. */
  v: 1 | 2;
  ringId: string;
  conversationId: string;
  epoch: number;
  senderId: string;
  clientMessageId: string;
  /** UTC ISO-8601 time of sending, e.g. "2026-11-24T10:00:00.000Z". */
  sentAt: string;
  /**
   * The head of the Ring's signed membership log the sender had verified when sending (issue
   * 24): its seq and link hash (hex SHA-256). Signed with the rest: a reader whose verified log has
   * another link at that seq sees a forked log, and the sender's key must be the one the log
   * names for it there. Absent on messages from before the log.
   */
  logSeq?: number;
  logHash?: string;
  /**
   * Ephemeral message (issue 25): seconds each reader keeps it after first displaying it. Signed
   * with the rest, so the server can neither make a permanent message ephemeral nor change the
   * delay; absent on a permanent message (and on ephemeral messages from before this field).
   * In v2 the lifetime is always signed (on the wire `x`, 0 for permanent).
   */
  ephemeralSec?: number;
  /** v2 only (required there): the sender's sequence. */
  chain?: MessageChain;
}

/**
 * The envelope as it travels and is stored (message `content`), a compact JSON object:
 * header fields under short keys, then base64 `iv` (12 bytes), `ct` (AES-GCM ciphertext with
 * tag; at level military it encrypts the inner layer's IV ‖ ciphertext) and `sig` (Ed25519).
 */
export interface WireEnvelope {
  v: 1 | 2;
  /** ringId */
  r: string;
  /** conversationId */
  c: string;
  /** epoch */
  e: number;
  /** senderId */
  s: string;
  /** clientMessageId */
  m: string;
  /** sentAt */
  t: string;
  /** logSeq (with `h`, or neither) */
  l?: number;
  /** logHash */
  h?: string;
  /** ephemeralSec (v2: always, 0 = permanent) */
  x?: number;
  /** v2: chain.stream */
  d?: string;
  /** v2: chain.counter */
  n?: number;
  /** v2: chain.prevHash */
  p?: string;
  /** v2: chain.lastPermanent */
  k?: number;
  iv: string;
  ct: string;
  sig: string;
}

/** A parsed envelope: the header and the decoded binary fields. */
export interface ParsedEnvelope {
  header: MessageHeader;
  iv: Bytes;
  ciphertext: Bytes;
  signature: Bytes;
}

/** Upper bound on an envelope's ciphertext (both layers and tags included): 64 KiB. */
export const MAX_ENVELOPE_CIPHERTEXT_BYTES = 65_536;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Largest message, in UTF-8 bytes, at every level (the military layer costs an IV and a tag). */
export const MAX_MESSAGE_BYTES = MAX_ENVELOPE_CIPHERTEXT_BYTES - 2 * TAG_BYTES - IV_BYTES;
/** Upper bound on the JSON text of an envelope, for servers to check before parsing. */
export const MAX_ENVELOPE_TEXT_LENGTH = Math.ceil(MAX_ENVELOPE_CIPHERTEXT_BYTES / 3) * 4 + 2_048;

const MESSAGE_DOMAIN = 'securering/message/v1';
/** v2 signs under its own domain: a v2 header can never be read as a v1 one (nor the reverse). */
const MESSAGE_DOMAIN_V2 = 'securering/message/v2';
const HASH_DOMAIN = 'securering/message-hash/v1';
const MAX_COUNTER = 0xffff_ffff;
const WIRE_FIELDS = ['v', 'r', 'c', 'e', 's', 'm', 't', 'iv', 'ct', 'sig'] as const;
/** Largest ephemeral delay a header may carry: 7 days (Rings allow up to a day). */
export const MAX_EPHEMERAL_SEC = 604_800;
const LOG_HASH = /^[0-9a-f]{64}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

const subtle = () => globalThis.crypto.subtle;

const isCount = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX_COUNTER;

function assertChain(chain: MessageChain | undefined): void {
  if (typeof chain !== 'object' || chain === null)
    throw new E2eeError('invalid_format', 'message header: v2 without its sequence');
  assertWireId(chain.stream, 'stream');
  if (
    !isCount(chain.counter, 1) ||
    typeof chain.prevHash !== 'string' ||
    !LOG_HASH.test(chain.prevHash) ||
    // The first message links to nothing; any other to a real hash.
    (chain.counter === 1) !== (chain.prevHash === CHAIN_START_HASH) ||
    !isCount(chain.lastPermanent, 0) ||
    chain.lastPermanent >= chain.counter
  )
    throw new E2eeError('invalid_format', 'message header: sequence');
}

function assertHeader(header: MessageHeader): void {
  if (header.v !== 1 && header.v !== 2)
    throw new E2eeError('invalid_format', 'message header: unknown version');
  if (header.v === 2) assertChain(header.chain);
  else if (header.chain !== undefined)
    throw new E2eeError('invalid_format', 'message header: v1 with a sequence');
  assertWireId(header.ringId, 'ringId');
  assertWireId(header.conversationId, 'conversationId');
  assertWireId(header.senderId, 'senderId');
  assertWireId(header.clientMessageId, 'clientMessageId');
  if (!isEpochNumber(header.epoch)) {
    throw new E2eeError('invalid_format', 'message header: epoch');
  }
  if (typeof header.sentAt !== 'string' || !ISO_UTC.test(header.sentAt) || isNaN(Date.parse(header.sentAt))) {
    throw new E2eeError('invalid_format', 'message header: sentAt');
  }
  if (
    header.ephemeralSec !== undefined &&
    (typeof header.ephemeralSec !== 'number' ||
      !Number.isInteger(header.ephemeralSec) ||
      header.ephemeralSec < 1 ||
      header.ephemeralSec > MAX_EPHEMERAL_SEC)
  ) {
    throw new E2eeError('invalid_format', 'message header: ephemeral delay');
  }
  if (header.logSeq === undefined && header.logHash === undefined) return;
  if (
    typeof header.logSeq !== 'number' ||
    !Number.isInteger(header.logSeq) ||
    header.logSeq < 0 ||
    header.logSeq > 0xffff_ffff ||
    typeof header.logHash !== 'string' ||
    !LOG_HASH.test(header.logHash)
  ) {
    throw new E2eeError('invalid_format', 'message header: membership log head');
  }
}

/** The canonical header bytes: associated data of both layers and part of the signed input. */
function headerBytes(header: MessageHeader): Bytes {
  // Who sent what where, first in both versions.
  const origin = [
    header.ringId,
    header.conversationId,
    String(header.epoch),
    header.senderId,
    header.clientMessageId,
    header.sentAt,
  ];
  if (header.v === 2) {
    const { stream, counter, prevHash, lastPermanent } = header.chain!;
    return encodeFields(
      MESSAGE_DOMAIN_V2,
      ...origin,
      String(header.ephemeralSec ?? 0),
      stream,
      String(counter),
      prevHash,
      String(lastPermanent),
      // Last, optional: with or without the log head, never ambiguous (length-prefixed fields).
      ...(header.logSeq !== undefined ? [String(header.logSeq), header.logHash!] : []),
    );
  }
  const fields = [MESSAGE_DOMAIN, ...origin];
  // Length-prefixed fields: a header with the log head never encodes like one without.
  if (header.logSeq !== undefined) fields.push(String(header.logSeq), header.logHash!);
  // Tagged: never encodes like a log head (whose seq is digits).
  if (header.ephemeralSec !== undefined) fields.push('ephemeral', String(header.ephemeralSec));
  return encodeFields(...fields);
}

function signedBytes(header: MessageHeader, iv: Bytes, ciphertext: Bytes): Bytes {
  return encodeFields(headerBytes(header), iv, ciphertext);
}

const domainOf = (header: MessageHeader) => (header.v === 2 ? MESSAGE_DOMAIN_V2 : MESSAGE_DOMAIN);

/**
 * The hash a sender's next message names as `prevHash` (hex SHA-256 of everything its signature
 * covers): the same for every copy of one envelope, whatever JSON spacing a server stores.
 */
export async function messageHash(envelope: ParsedEnvelope): Promise<string> {
  const bytes = encodeFields(HASH_DOMAIN, signedBytes(envelope.header, envelope.iv, envelope.ciphertext));
  return toHex(new Uint8Array(await subtle().digest('SHA-256', bytes)));
}

async function aesGcm(
  mode: 'encrypt' | 'decrypt',
  key: CryptoKey,
  iv: Bytes,
  additionalData: Bytes,
  data: Bytes,
): Promise<Bytes> {
  return new Uint8Array(await subtle()[mode]({ name: 'AES-GCM', iv, additionalData }, key, data));
}

/**
 * Encrypts and signs a chat message under the epoch key named in the header, and returns the
 * wire envelope (JSON text). At level military the text is first encrypted under the inner key.
 */
export async function encryptMessage(
  header: MessageHeader,
  plaintext: string,
  epochKey: EpochKey,
  signingPrivateKey: CryptoKey,
): Promise<string> {
  assertHeader(header);
  if (epochKey.ringId !== header.ringId || epochKey.epoch !== header.epoch) {
    throw new E2eeError('invalid_format', 'the epoch key does not match the header');
  }
  if (epochKey.conversationId !== undefined && epochKey.conversationId !== header.conversationId) {
    throw new E2eeError('invalid_format', 'the conversation key belongs to another conversation');
  }
  const text = utf8Encode(plaintext);
  if (text.length > MAX_MESSAGE_BYTES) throw new E2eeError('too_large', 'message too long');
  const aad = headerBytes(header);
  let payload = text;
  if (epochKey.innerKey) {
    const innerIv = randomBytes(IV_BYTES);
    payload = concatBytes(innerIv, await aesGcm('encrypt', epochKey.innerKey, innerIv, aad, text));
  }
  const iv = randomBytes(IV_BYTES);
  const ciphertext = await aesGcm('encrypt', epochKey.messageKey, iv, aad, payload);
  const signature = await signDetached(
    signingPrivateKey,
    domainOf(header),
    signedBytes(header, iv, ciphertext),
  );
  const chain = header.chain;
  const wire: WireEnvelope = {
    v: header.v,
    r: header.ringId,
    c: header.conversationId,
    e: header.epoch,
    s: header.senderId,
    m: header.clientMessageId,
    t: header.sentAt,
    ...(header.logSeq !== undefined ? { l: header.logSeq, h: header.logHash! } : {}),
    ...(chain
      ? {
          x: header.ephemeralSec ?? 0,
          d: chain.stream,
          n: chain.counter,
          p: chain.prevHash,
          k: chain.lastPermanent,
        }
      : header.ephemeralSec !== undefined
        ? { x: header.ephemeralSec }
        : {}),
    iv: toBase64(iv),
    ct: toBase64(ciphertext),
    sig: toBase64(signature),
  };
  return JSON.stringify(wire);
}

/**
 * Strict parse of an envelope (exact fields, types, sizes) without any key. Throws `invalid_format`.
 */
export function parseEnvelope(text: string): ParsedEnvelope {
  const { header, wire } = readWire(text);
  return {
    header,
    iv: readBase64Field(wire.iv, 'iv', IV_BYTES),
    ciphertext: readBase64Field(wire.ct, 'ct', { min: TAG_BYTES, max: MAX_ENVELOPE_CIPHERTEXT_BYTES }),
    signature: readBase64Field(wire.sig, 'sig', SIGNATURE_BYTES),
  };
}

/**
 * The header of an envelope, which is checked exactly as parseEnvelope checks it (the binary
 * fields' base64 and sizes included) without decoding its binary fields: what a server reads of a
 * message it cannot open (the ring, conversation, epoch, sender and client message id). Throws
 * `invalid_format`.
 */
export function readEnvelopeHeader(text: string): MessageHeader {
  const { header, wire } = readWire(text);
  checkBase64Field(wire.iv, 'iv', IV_BYTES);
  checkBase64Field(wire.ct, 'ct', { min: TAG_BYTES, max: MAX_ENVELOPE_CIPHERTEXT_BYTES });
  checkBase64Field(wire.sig, 'sig', SIGNATURE_BYTES);
  return header;
}

/** An envelope's JSON with exactly its fields, and its checked header. */
function readWire(text: string) {
  if (typeof text !== 'string' || text.length > MAX_ENVELOPE_TEXT_LENGTH) {
    throw new E2eeError('invalid_format', 'envelope: not a string or too long');
  }
  let wire: unknown;
  try {
    wire = JSON.parse(text);
  } catch {
    throw new E2eeError('invalid_format', 'envelope: not JSON');
  }
  const has = (key: string) => typeof wire === 'object' && wire !== null && key in wire;
  const withLog = has('l') || has('h');
  const v2 = typeof wire === 'object' && wire !== null && (wire as { v?: unknown }).v === 2;
  const ephemeral = has('x');
  assertExactKeys(
    wire,
    [
      ...WIRE_FIELDS,
      ...(withLog ? ['l', 'h'] : []),
      ...(ephemeral || v2 ? ['x'] : []),
      ...(v2 ? ['d', 'n', 'p', 'k'] : []),
    ],
    'envelope',
  );
  // v2 signs the lifetime explicitly: 0 is a permanent message (no `ephemeralSec`).
  const lifetime = v2 ? (wire.x === 0 ? undefined : wire.x) : wire.x;
  if (v2 && typeof wire.x !== 'number') throw new E2eeError('invalid_format', 'message header: lifetime');
  const header = {
    v: wire.v,
    ringId: wire.r,
    conversationId: wire.c,
    epoch: wire.e,
    senderId: wire.s,
    clientMessageId: wire.m,
    sentAt: wire.t,
    ...(withLog ? { logSeq: wire.l, logHash: wire.h } : {}),
    ...(lifetime !== undefined ? { ephemeralSec: lifetime } : {}),
    ...(v2 ? { chain: { stream: wire.d, counter: wire.n, prevHash: wire.p, lastPermanent: wire.k } } : {}),
  } as MessageHeader;
  assertHeader(header);
  return { header, wire };
}

/** Where the keys of a message come from: the local key store of the member reading it. */
export interface MessageKeyLookups {
  /** The Ring's key for that epoch, or undefined when this member does not have it (yet). */
  epochKey(epoch: number): EpochKey | undefined | Promise<EpochKey | undefined>;
  /**
   * The sender's Ed25519 public key, or undefined when unknown. The (not yet verified) header says
   * under which epoch it was sent, so a caller can pick the key that was the sender's then.
   */
  senderVerifyKey(
    senderId: string,
    header: MessageHeader,
  ): CryptoKey | undefined | Promise<CryptoKey | undefined>;
}

/**
 * Verifies and decrypts an envelope found in `expected` Ring and conversation. Throws
 * `missing_key` when the epoch or sender key is not known locally (the UI waits for keys), and
 * `unverifiable` for anything else: not an envelope, found elsewhere than its header says,
 * signature or decryption failure.
 */
export async function decryptMessage(
  text: string,
  expected: { ringId: string; conversationId: string },
  lookups: MessageKeyLookups,
): Promise<{ header: MessageHeader; plaintext: string }> {
  let parsed: ParsedEnvelope;
  try {
    parsed = parseEnvelope(text);
  } catch {
    throw new E2eeError('unverifiable', 'not an encrypted envelope');
  }
  const { header, iv, ciphertext, signature } = parsed;
  if (header.ringId !== expected.ringId || header.conversationId !== expected.conversationId) {
    throw new E2eeError('unverifiable', 'message moved from another Ring or conversation');
  }
  const verifyKey = await lookups.senderVerifyKey(header.senderId, header);
  if (!verifyKey) throw new E2eeError('missing_key', 'sender key unknown');
  const epochKey = await lookups.epochKey(header.epoch);
  if (!epochKey) throw new E2eeError('missing_key', `epoch ${header.epoch} key unknown`);
  if (
    epochKey.ringId !== header.ringId ||
    epochKey.epoch !== header.epoch ||
    (epochKey.conversationId !== undefined && epochKey.conversationId !== header.conversationId)
  ) {
    throw new E2eeError('unverifiable', 'the epoch key does not match the header');
  }
  if (!(await verifyDetached(verifyKey, domainOf(header), signedBytes(header, iv, ciphertext), signature))) {
    throw new E2eeError('unverifiable', 'message signature does not verify');
  }
  const aad = headerBytes(header);
  try {
    let payload = await aesGcm('decrypt', epochKey.messageKey, iv, aad, ciphertext);
    if (epochKey.innerKey) {
      const innerIv = payload.slice(0, IV_BYTES);
      payload = await aesGcm('decrypt', epochKey.innerKey, innerIv, aad, payload.slice(IV_BYTES));
    }
    return { header, plaintext: utf8Decode(payload) };
  } catch {
    throw new E2eeError('unverifiable', 'message does not decrypt');
  }
}
