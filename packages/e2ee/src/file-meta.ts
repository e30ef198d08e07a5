import {
  type Bytes,
  assertWireId,
  concatBytes,
  encodeFields,
  fromBase64Url,
  randomBytes,
  toBase64Url,
  utf8Decode,
  utf8Encode,
} from './encoding';
import { E2eeError } from './errors';
import type { EpochKey } from './epoch-keys';
import { FILE_KEY_BYTES } from './file-stream';
import { MAX_NAME_LENGTH } from './names';
import { signDetached, verifyDetached } from './signing';

/**
 * Per-file and per-folder metadata (issue 27, review finding M3). A file's name, type, folder and
 * uploader travel in one blob encrypted under a key derived from the file's own key (AES-256-GCM,
 * random nonce, associated data = Ring id + file id + format version), padded to a size bucket,
 * and signed with the Ed25519 key of the member who wrote it. A folder's name and parent travel
 * the same way under a key derived from the Ring names key, bound to the folder id. The server can
 * neither read, swap, move nor forge them: a blob opens only for its own object, and its signer
 * must be a member whose key the verified membership log names.
 *
 * Where the server must compare names (one folder name per parent), it compares lookup tags:
 * HMAC-SHA-256 of the parent folder id and the NFC name under a tag key derived from the epoch
 * key, so tags change with every epoch and say nothing across epochs.
 */

/** What a file's metadata says (all of it is encrypted). */
export interface FileMeta {
  /** The file name as the uploader chose it (NFC). */
  name: string;
  /** Its media type as the browser saw it ("" when unknown). */
  type: string;
  /** Id of the folder it was put in ("" for the root). */
  folder: string;
  /**
   * Member id of the uploader (for a migrated file: as the server named it to the migrating
   * member; "" when unknown).
   */
  uploader: string;
}

/** What a folder's metadata says. */
export interface FolderMeta {
  name: string;
  /** Id of the parent folder ("" for the root). */
  parent: string;
}

/** An opened blob: what it says, and the member whose signature it carries. */
export interface OpenedMeta<T> {
  meta: T;
  signer: string;
}

const FORMAT = 'm1';
const FILE_DOMAIN = 'securering/file-meta/v1';
const FOLDER_DOMAIN = 'securering/folder-meta/v1';
const TAG_DOMAIN = 'securering/name-tag/v1';
const NONCE_BYTES = 12;
/** Plaintext sizes a blob is padded to: only the bucket of a name's length shows. */
export const META_BUCKETS = [256, 512, 1024, 2048] as const;
/** Longest wire form of a blob (2048-byte bucket, nonce, tag, signature, ids, separators). */
export const MAX_SEALED_META_LENGTH = 3200;
const SIGNER = /^[A-Za-z0-9_-]{1,128}$/;
const ID_OR_ROOT = /^[\x21-\x7e]{0,128}$/;

const subtle = () => globalThis.crypto.subtle;

type Kind = 'file' | 'folder';
const domainOf = (kind: Kind) => (kind === 'file' ? FILE_DOMAIN : FOLDER_DOMAIN);

async function hkdfKey(secret: Uint8Array, info: Bytes, usage: 'aes' | 'hmac'): Promise<CryptoKey> {
  const base = await subtle().importKey('raw', new Uint8Array(secret), 'HKDF', false, ['deriveKey']);
  const params = { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info };
  return usage === 'aes'
    ? subtle().deriveKey(params, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])
    : subtle().deriveKey(params, base, { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['sign']);
}

function metaKey(kind: Kind, secret: Uint8Array, ringId: string): Promise<CryptoKey> {
  if (secret.length !== FILE_KEY_BYTES)
    throw new E2eeError('invalid_format', 'a metadata secret has 32 bytes');
  return hkdfKey(secret, encodeFields(domainOf(kind), ringId), 'aes');
}

function assertMetaName(name: unknown): asserts name is string {
  const ok =
    typeof name === 'string' &&
    name === name.normalize('NFC') &&
    [...name].length >= 1 &&
    [...name].length <= MAX_NAME_LENGTH &&
    ![...name].some((c) => c === '/' || c < ' ' || c === '\x7f') &&
    name !== '.' &&
    name !== '..';
  if (!ok) throw new E2eeError('invalid_format', 'invalid file or folder name');
}

function assertIdOrRoot(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || !ID_OR_ROOT.test(value))
    throw new E2eeError('invalid_format', `${field}: invalid identifier`);
}

/** The plaintext, padded with spaces (JSON ignores them) to the smallest bucket that holds it. */
export function padMeta(json: string): Bytes {
  const bytes = utf8Encode(json);
  const bucket = META_BUCKETS.find((size) => size >= bytes.length);
  if (bucket === undefined) throw new E2eeError('invalid_format', 'metadata too long');
  const padded = new Uint8Array(bucket).fill(0x20);
  padded.set(bytes);
  return padded;
}

function associatedData(kind: Kind, ringId: string, objectId: string, signer: string): Bytes {
  return encodeFields(domainOf(kind), ringId, objectId, FORMAT, signer);
}

async function seal(
  kind: Kind,
  options: {
    ringId: string;
    objectId: string;
    secret: Uint8Array;
    plain: object;
    signer: { memberId: string; signingPrivateKey: CryptoKey };
  },
): Promise<string> {
  const { ringId, objectId, secret, plain, signer } = options;
  assertWireId(ringId, 'ringId');
  assertWireId(objectId, 'objectId');
  if (!SIGNER.test(signer.memberId)) throw new E2eeError('invalid_format', 'signer: invalid identifier');
  const key = await metaKey(kind, secret, ringId);
  const nonce = randomBytes(NONCE_BYTES);
  const ad = associatedData(kind, ringId, objectId, signer.memberId);
  const ct = new Uint8Array(
    await subtle().encrypt(
      { name: 'AES-GCM', iv: nonce, additionalData: ad },
      key,
      padMeta(JSON.stringify(plain)),
    ),
  );
  const body = concatBytes(nonce, ct);
  const sig = await signDetached(signer.signingPrivateKey, domainOf(kind), encodeFields(ad, body));
  return [FORMAT, signer.memberId, toBase64Url(body), toBase64Url(sig)].join('.');
}

/** The signer a sealed blob names (to look up its keys), or undefined for a malformed blob. */
export function signerOfMeta(sealed: string): string | undefined {
  const parts = sealed.split('.');
  if (sealed.length > MAX_SEALED_META_LENGTH || parts.length !== 4 || parts[0] !== FORMAT) return undefined;
  return SIGNER.test(parts[1] ?? '') ? parts[1] : undefined;
}

/** A sealed blob's wire shape (the server's check: no key needed). */
export function isSealedMeta(value: string): boolean {
  const parts = value.split('.');
  return (
    signerOfMeta(value) !== undefined &&
    /^[A-Za-z0-9_-]{40,}$/.test(parts[2] ?? '') &&
    /^[A-Za-z0-9_-]{86}$/.test(parts[3] ?? '')
  );
}

async function open(
  kind: Kind,
  options: {
    ringId: string;
    objectId: string;
    secret: Uint8Array;
    sealed: string;
    /** Keys the verified membership log gives the signer (none: refused). */
    verifyKeysOf: (memberId: string) => Promise<CryptoKey[]>;
  },
): Promise<{ plain: Record<string, unknown>; signer: string }> {
  const { ringId, objectId, secret, sealed, verifyKeysOf } = options;
  const signer = signerOfMeta(sealed);
  if (!signer || !isSealedMeta(sealed)) throw new E2eeError('invalid_format', 'metadata: malformed');
  const [, , bodyText, sigText] = sealed.split('.') as [string, string, string, string];
  const body = fromBase64Url(bodyText);
  const sig = fromBase64Url(sigText);
  const ad = associatedData(kind, ringId, objectId, signer);
  let signed = false;
  for (const key of await verifyKeysOf(signer)) {
    if (await verifyDetached(key, domainOf(kind), encodeFields(ad, body), sig)) {
      signed = true;
      break;
    }
  }
  if (!signed) throw new E2eeError('unverifiable', 'metadata: no signature of a known member key');
  let text: string;
  try {
    const key = await metaKey(kind, secret, ringId);
    const plain = await subtle().decrypt(
      { name: 'AES-GCM', iv: body.subarray(0, NONCE_BYTES), additionalData: ad },
      key,
      body.subarray(NONCE_BYTES),
    );
    text = utf8Decode(new Uint8Array(plain));
  } catch {
    throw new E2eeError('unverifiable', 'metadata does not decrypt for this object');
  }
  let plain: unknown;
  try {
    plain = JSON.parse(text);
  } catch {
    throw new E2eeError('invalid_format', 'metadata: not JSON');
  }
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain))
    throw new E2eeError('invalid_format', 'metadata: not an object');
  return { plain: plain as Record<string, unknown>, signer };
}

/**
 * Seals a file's metadata under its file key, bound to the Ring and the file id, signed by
 * `signer` (the uploader; or the member who renames or migrates it).
 */
export function sealFileMeta(options: {
  ringId: string;
  fileId: string;
  fileKey: Uint8Array;
  meta: FileMeta;
  signer: { memberId: string; signingPrivateKey: CryptoKey };
}): Promise<string> {
  const meta = { ...options.meta, name: options.meta.name.normalize('NFC') };
  assertMetaName(meta.name);
  assertIdOrRoot(meta.folder, 'folder');
  assertIdOrRoot(meta.uploader, 'uploader');
  if (typeof meta.type !== 'string' || meta.type.length > 255 || !/^[\x20-\x7e]*$/.test(meta.type))
    throw new E2eeError('invalid_format', 'type');
  return seal('file', {
    ringId: options.ringId,
    objectId: options.fileId,
    secret: options.fileKey,
    plain: { name: meta.name, type: meta.type, folder: meta.folder, uploader: meta.uploader },
    signer: options.signer,
  });
}

/**
 * Opens a file's metadata: throws `unverifiable` when it is not signed by a key the log gives its
 * signer, or was sealed for another file or Ring, or altered; `invalid_format` for a bad shape.
 */
export async function openFileMeta(options: {
  ringId: string;
  fileId: string;
  fileKey: Uint8Array;
  sealed: string;
  verifyKeysOf: (memberId: string) => Promise<CryptoKey[]>;
}): Promise<OpenedMeta<FileMeta>> {
  const { plain, signer } = await open('file', {
    ringId: options.ringId,
    objectId: options.fileId,
    secret: options.fileKey,
    sealed: options.sealed,
    verifyKeysOf: options.verifyKeysOf,
  });
  const { name, type, folder, uploader } = plain;
  assertMetaName(name);
  assertIdOrRoot(folder, 'folder');
  assertIdOrRoot(uploader, 'uploader');
  if (typeof type !== 'string') throw new E2eeError('invalid_format', 'type');
  return { meta: { name, type, folder, uploader }, signer };
}

/** Seals a folder's name and parent under the Ring names key, bound to the folder id. */
export function sealFolderMeta(options: {
  ringId: string;
  folderId: string;
  namesKey: Uint8Array;
  meta: FolderMeta;
  signer: { memberId: string; signingPrivateKey: CryptoKey };
}): Promise<string> {
  const meta = { ...options.meta, name: options.meta.name.normalize('NFC') };
  assertMetaName(meta.name);
  assertIdOrRoot(meta.parent, 'parent');
  return seal('folder', {
    ringId: options.ringId,
    objectId: options.folderId,
    secret: options.namesKey,
    plain: { name: meta.name, parent: meta.parent },
    signer: options.signer,
  });
}

/** Opens a folder's metadata (same refusals as `openFileMeta`). */
export async function openFolderMeta(options: {
  ringId: string;
  folderId: string;
  namesKey: Uint8Array;
  sealed: string;
  verifyKeysOf: (memberId: string) => Promise<CryptoKey[]>;
}): Promise<OpenedMeta<FolderMeta>> {
  const { plain, signer } = await open('folder', {
    ringId: options.ringId,
    objectId: options.folderId,
    secret: options.namesKey,
    sealed: options.sealed,
    verifyKeysOf: options.verifyKeysOf,
  });
  const { name, parent } = plain;
  assertMetaName(name);
  assertIdOrRoot(parent, 'parent');
  return { meta: { name, parent }, signer };
}

/**
 * The key of one epoch's lookup tags (HKDF-SHA-256 of the epoch key material, labelled): a new
 * epoch gives new tags, so tags written in different epochs cannot be compared.
 */
export function deriveNameTagKey(epochKey: EpochKey): Promise<CryptoKey> {
  return hkdfKey(
    epochKey.material,
    encodeFields(TAG_DOMAIN, epochKey.ringId, String(epochKey.epoch)),
    'hmac',
  );
}

/**
 * The lookup tag of a name in a folder (base64url, 43 characters): equal for the same NFC name
 * under the same parent in the same epoch, and nothing else.
 */
export async function nameTag(tagKey: CryptoKey, parentId: string, name: string): Promise<string> {
  const normalized = name.normalize('NFC');
  assertMetaName(normalized);
  assertIdOrRoot(parentId, 'parent');
  const mac = await subtle().sign('HMAC', tagKey, encodeFields(TAG_DOMAIN, parentId, normalized));
  return toBase64Url(new Uint8Array(mac));
}

/** A random opaque name (base64url, 43 characters) for fields the server needs no comparison on. */
export function opaqueName(): string {
  return toBase64Url(randomBytes(32));
}
