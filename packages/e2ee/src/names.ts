import { gcmsiv } from '@noble/ciphers/aes.js';
import {
  type Bytes,
  assertWireId,
  encodeFields,
  fromBase64Url,
  toBase64Url,
  utf8Decode,
  utf8Encode,
} from './encoding';
import { E2eeError } from './errors';

/** Longest file or folder name, in characters (Unicode code points). */
export const MAX_NAME_LENGTH = 255;
const NAMES_KEY_BYTES = 32;
const TAG_BYTES = 16;
// 255 code points take at most 1020 UTF-8 bytes; with the tag, in unpadded base64url:
const MAX_ENCRYPTED_NAME_LENGTH = Math.ceil(((MAX_NAME_LENGTH * 4 + TAG_BYTES) * 4) / 3);
/**
 * AES-GCM-SIV is deterministic for a given key, nonce, associated data and plaintext: with a fixed
 * nonce, the same name in the same Ring always encrypts to the same text, which lets the server
 * look names up and refuse duplicates in a folder without reading them. It reveals only which
 * names are equal within a Ring (RFC 8452: a repeated nonce costs SIV nothing else).
 */
const FIXED_NONCE = new Uint8Array(12);

function cipher(namesKey: Uint8Array, ringId: string) {
  assertWireId(ringId, 'ringId');
  if (namesKey.length !== NAMES_KEY_BYTES)
    throw new E2eeError('invalid_format', 'the names key has 32 bytes');
  return gcmsiv(namesKey, FIXED_NONCE, encodeFields('securering/names/v1', ringId));
}

function assertName(name: string): void {
  const characters = [...name];
  const forbidden = (c: string) => c === '/' || c < ' ' || c === '\x7f';
  if (
    characters.length === 0 ||
    characters.length > MAX_NAME_LENGTH ||
    characters.some(forbidden) ||
    name === '.' ||
    name === '..'
  ) {
    throw new E2eeError('invalid_format', 'invalid file or folder name');
  }
}

/**
 * Encrypts one file or folder name (NFC-normalized, 1 to 255 characters, no "/" nor control
 * character, not "." or "..") under the Ring names key: unpadded base64url, never containing "/".
 */
export function encryptName(namesKey: Uint8Array, ringId: string, name: string): string {
  const normalized = name.normalize('NFC');
  assertName(normalized);
  return toBase64Url(cipher(namesKey, ringId).encrypt(utf8Encode(normalized)));
}

/** Decrypts a name from `encryptName`; throws `unverifiable` if it was altered or is from another Ring. */
export function decryptName(namesKey: Uint8Array, ringId: string, encrypted: string): string {
  if (encrypted.length > MAX_ENCRYPTED_NAME_LENGTH) throw new E2eeError('invalid_format', 'name too long');
  const sealed: Bytes = fromBase64Url(encrypted);
  let plain: Uint8Array;
  try {
    plain = cipher(namesKey, ringId).decrypt(sealed);
  } catch {
    throw new E2eeError('unverifiable', 'name does not decrypt');
  }
  const name = utf8Decode(plain);
  assertName(name);
  return name;
}

function segments(path: string): string[] {
  if (path === '') return [];
  return path.split('/');
}

/** Encrypts a "/"-separated folder path segment by segment ("" is the root and stays ""). */
export function encryptPath(namesKey: Uint8Array, ringId: string, path: string): string {
  return segments(path)
    .map((segment) => encryptName(namesKey, ringId, segment))
    .join('/');
}

/** Decrypts a path from `encryptPath`. */
export function decryptPath(namesKey: Uint8Array, ringId: string, encryptedPath: string): string {
  return segments(encryptedPath)
    .map((segment) => decryptName(namesKey, ringId, segment))
    .join('/');
}
