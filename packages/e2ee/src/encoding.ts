import { E2eeError } from './errors';

/** Bytes backed by a plain ArrayBuffer, as WebCrypto accepts them. */
export type Bytes = Uint8Array<ArrayBuffer>;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `length` cryptographically random bytes (crypto.getRandomValues, 64 KiB per call at most). */
export function randomBytes(length: number): Bytes {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += 65_536) globalThis.crypto.getRandomValues(out.subarray(i, i + 65_536));
  return out;
}

/** UTF-8 bytes of a string. */
export function utf8Encode(text: string): Bytes {
  return utf8Encoder.encode(text);
}

/** Strict UTF-8 decoding: malformed input throws `invalid_format` instead of producing U+FFFD. */
export function utf8Decode(bytes: Uint8Array): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw new E2eeError('invalid_format', 'malformed UTF-8');
  }
}

/** Concatenation of byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** 4-byte big-endian encoding of an unsigned 32-bit integer. */
export function u32be(value: number): Bytes {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new E2eeError('invalid_format', 'value out of the 32-bit range');
  }
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/**
 * Canonical, unambiguous encoding of a list of fields: each field is its 4-byte big-endian length
 * followed by its bytes (strings as UTF-8). Used for every associated data, HPKE info and signed
 * input, so no two different contexts encode to the same bytes.
 */
export function encodeFields(...fields: (string | Uint8Array)[]): Bytes {
  // One buffer, strings UTF-8-encoded straight into it (at most 3 bytes per UTF-16 unit): this runs
  // for every signature, AAD and log link, where one small allocation per field cost more than the
  // bytes themselves.
  let bound = 0;
  for (const field of fields) bound += 4 + (typeof field === 'string' ? field.length * 3 : field.length);
  const out = new Uint8Array(bound);
  let offset = 0;
  for (const field of fields) {
    let length: number;
    if (typeof field === 'string') {
      length = utf8Encoder.encodeInto(field, out.subarray(offset + 4)).written;
    } else {
      out.set(field, offset + 4);
      length = field.length;
    }
    if (length > 0xffff_ffff) throw new E2eeError('invalid_format', 'value out of the 32-bit range');
    out[offset] = length >>> 24;
    out[offset + 1] = (length >>> 16) & 0xff;
    out[offset + 2] = (length >>> 8) & 0xff;
    out[offset + 3] = length & 0xff;
    offset += 4 + length;
  }
  return offset === bound ? out : out.slice(0, offset);
}

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Whether a well-formed base64 text (BASE64 matched) is the canonical encoding of its bytes: the
 * bits the last character before the padding carries beyond the data (4 with "==", 2 with "=")
 * are zero. The same answer as re-encoding and comparing, without the re-encoding.
 */
function canonicalPadding(text: string): boolean {
  const padding = paddingOf(text);
  if (padding === 0) return true;
  const last = BASE64_ALPHABET.indexOf(text.charAt(text.length - padding - 1));
  return (last & (padding === 2 ? 0b1111 : 0b11)) === 0;
}

/** The "=" characters that end a base64 text: 0, 1 or 2. */
function paddingOf(text: string): number {
  return text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
}

/**
 * How many bytes a strict base64 text decodes to: only the canonical encoding of some bytes is
 * accepted (fromBase64's checks), and nothing is decoded, for a reader that needs the size only.
 */
export function base64ByteLength(text: string): number {
  if (!BASE64.test(text)) throw new E2eeError('invalid_format', 'not base64');
  if (!canonicalPadding(text)) throw new E2eeError('invalid_format', 'non-canonical base64');
  return (text.length / 4) * 3 - paddingOf(text);
}

/** Strict base64 decoding: only the canonical encoding of some bytes is accepted. */
export function fromBase64(text: string): Bytes {
  base64ByteLength(text);
  return decodeCheckedBase64(text);
}

/** The bytes of a base64 text base64ByteLength has accepted. */
function decodeCheckedBase64(text: string): Bytes {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** base64url without padding (RFC 4648 §5): never contains "/", "+" or "=". */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Strict base64url (no padding) decoding. */
export function fromBase64Url(text: string): Bytes {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new E2eeError('invalid_format', 'not base64url');
  }
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return fromBase64(padded);
}

const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lower-case hexadecimal (a table lookup per byte: hashes of every log link go through here). */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX_PAIRS[bytes[i]!]!;
  return out;
}

/** Strict lower-case hexadecimal decoding. */
export function fromHex(text: string): Bytes {
  if (!/^(?:[0-9a-f]{2})*$/.test(text)) throw new E2eeError('invalid_format', 'not lower-case hex');
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * Decodes a base64 field of a wire object and checks its decoded size (an exact length, or
 * inclusive bounds); anything else throws `invalid_format` naming the field.
 */
export function readBase64Field(
  value: unknown,
  field: string,
  size: number | { min: number; max: number },
): Bytes {
  checkBase64Field(value, field, size);
  return decodeCheckedBase64(value);
}

/**
 * readBase64Field's checks without the decoding: for a reader that only needs to know the field is
 * well formed (a server checking an envelope it cannot open). Throws as readBase64Field does.
 */
export function checkBase64Field(
  value: unknown,
  field: string,
  size: number | { min: number; max: number },
): asserts value is string {
  const { min, max } = typeof size === 'number' ? { min: size, max: size } : size;
  // 4 characters per 3 bytes: refuse oversized text before reading it.
  if (typeof value !== 'string' || value.length > Math.ceil(max / 3) * 4) {
    throw new E2eeError('invalid_format', `${field}: expected base64`);
  }
  const length = base64ByteLength(value);
  if (length < min || length > max) {
    throw new E2eeError('invalid_format', `${field}: wrong size`);
  }
}

const WIRE_ID = /^[\x21-\x7e]{1,128}$/;

/** Identifiers in wire formats: 1 to 128 printable ASCII characters, no spaces. */
export function isWireId(value: unknown): value is string {
  return typeof value === 'string' && WIRE_ID.test(value);
}

/** Throws `invalid_format` unless `value` is a wire identifier. */
export function assertWireId(value: unknown, field: string): asserts value is string {
  if (!isWireId(value)) throw new E2eeError('invalid_format', `${field}: invalid identifier`);
}

/** Throws `invalid_format` unless `value` is a plain object with exactly the given keys. */
export function assertExactKeys(
  value: unknown,
  keys: readonly string[],
  what: string,
): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new E2eeError('invalid_format', `${what}: expected an object`);
  }
  // Own keys are distinct: as many as expected, each expected, is the same set (no sorting).
  const actual = Object.keys(value);
  if (actual.length !== keys.length || actual.some((key) => !keys.includes(key))) {
    throw new E2eeError('invalid_format', `${what}: unexpected fields`);
  }
}
