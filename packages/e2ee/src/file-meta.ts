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
import type { MetaPin, SignedPin } from './meta-pin';
import { MAX_NAME_LENGTH } from './names';
import { signDetached, verifyDetached } from './signing';

export type { MetaPin, SignedPin } from './meta-pin';

/**
 * Per-file and per-folder metadata (issue 27, review finding M3). A file's name, type, folder,
 * uploader, version and content binding travel in one blob encrypted under a key derived from the
 * file's own key (AES-256-GCM, random nonce), padded to a size bucket, and signed with the Ed25519
 * key of the member who wrote it. A folder's name, parent and version travel the same way under a
 * key derived from one epoch key (so folder names rotate with epochs like everything else, and the
 * epoch is named in the blob). The associated data binds the Ring, the object id, the format, the
 * signer, the epoch and the membership-log position (seq and hash) the signer verified: the server
 * can neither read, swap, move nor forge them, and the signer's key is checked against the log at
 * that position (`metaSignerKeys`): a key the log does not give the signer there, or a member
 * removed before it, is refused. The version (raised by every rename or migration) lets a reader
 * refuse an older blob once it has seen a newer one; the content binding (stored size and SRF1
 * header) ties a file's metadata to its bytes.
 *
 * Where the server must compare names (one folder name per parent), it compares lookup tags:
 * HMAC-SHA-256 of the parent folder id and the NFC name under a tag key derived from the epoch
 * key, so tags change with every epoch and say nothing across epochs.
 */

/** What a file's content was when its metadata was signed: stored size and SRF1 header. */
export interface ContentBinding {
  /** Stored (ciphertext) bytes. */
  size: number;
  /** The 12-byte SRF1 header (its random nonce prefix names this encryption), base64url. */
  header: string;
}

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
  /** 1 at upload; each rename or migration signs the previous version + 1. */
  version: number;
  /** The content it describes; null for a file migrated from before the metadata (unknown). */
  content: ContentBinding | null;
}

/** What a folder's metadata says. */
export interface FolderMeta {
  name: string;
  /** Id of the parent folder ("" for the root). */
  parent: string;
  /** 1 at creation; each rename, migration or re-sealing under a newer epoch adds 1. */
  version: number;
}

/** An opened blob: what it says, the member whose signature it carries and where it was signed. */
export interface OpenedMeta<T> {
  meta: T;
  signer: string;
  pin: MetaPin;
}

/** The keys the verified log gives a blob's signer at its pin (none: refused). */
export type SignerKeys = (pin: SignedPin) => Promise<CryptoKey[]>;

const FORMAT = 'm2';
const FILE_DOMAIN = 'securering/file-meta/v2';
const FOLDER_DOMAIN = 'securering/folder-meta/v2';
const TAG_DOMAIN = 'securering/name-tag/v1';
const NONCE_BYTES = 12;
const CONTENT_HEADER_BYTES = 12;
/** Plaintext sizes a blob is padded to: only the bucket of a name's length shows. */
export const META_BUCKETS = [256, 512, 1024, 2048] as const;
/** Longest wire form of a blob (2048-byte bucket, nonce, tag, signature, ids, pin, separators). */
export const MAX_SEALED_META_LENGTH = 3200;
const SIGNER = /^[A-Za-z0-9_-]{1,128}$/;
const ID_OR_ROOT = /^[\x21-\x7e]{0,128}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,9})$/;
const LOG_HASH = /^[0-9a-f]{64}$/;
const MAX_VERSION = 0x7fff_ffff;

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

/** A file's metadata key: from its own 32-byte file key. */
function fileMetaKey(fileKey: Uint8Array, ringId: string): Promise<CryptoKey> {
  if (fileKey.length !== FILE_KEY_BYTES) throw new E2eeError('invalid_format', 'a file key has 32 bytes');
  return hkdfKey(fileKey, encodeFields(FILE_DOMAIN, ringId), 'aes');
}

/**
 * A folder's metadata key: from one epoch's whole key material (its message key changes every
 * epoch), labelled with the epoch; distinct from the lookup-tag key of the same epoch.
 */
function folderMetaKey(epochKey: EpochKey, ringId: string): Promise<CryptoKey> {
  if (epochKey.ringId !== ringId || epochKey.conversationId !== undefined)
    throw new E2eeError('invalid_format', 'not this Ring’s epoch key');
  return hkdfKey(epochKey.material, encodeFields(FOLDER_DOMAIN, ringId, String(epochKey.epoch)), 'aes');
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

function assertVersion(value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_VERSION)
    throw new E2eeError('invalid_format', 'version');
}

function assertContent(value: unknown): asserts value is ContentBinding | null {
  if (value === null) return;
  const content = value as Partial<ContentBinding> | undefined;
  const ok =
    typeof content === 'object' &&
    typeof content.size === 'number' &&
    Number.isSafeInteger(content.size) &&
    content.size >= CONTENT_HEADER_BYTES &&
    typeof content.header === 'string' &&
    /^[A-Za-z0-9_-]{16}$/.test(content.header);
  if (!ok) throw new E2eeError('invalid_format', 'content');
}

function assertPin(pin: MetaPin): void {
  const ok =
    Number.isInteger(pin.epoch) &&
    pin.epoch >= 1 &&
    pin.epoch <= 0xffff_ffff &&
    Number.isInteger(pin.logSeq) &&
    pin.logSeq >= 0 &&
    pin.logSeq <= 1e9 &&
    LOG_HASH.test(pin.logHash);
  if (!ok) throw new E2eeError('invalid_format', 'pin: epoch, logSeq or logHash');
}

/** A file's content binding from its SRF1 header and stored size (what the uploader encrypted). */
export function contentBinding(header: Uint8Array, size: number): ContentBinding {
  if (header.length !== CONTENT_HEADER_BYTES || !Number.isSafeInteger(size) || size < CONTENT_HEADER_BYTES)
    throw new E2eeError('invalid_format', 'content binding');
  return { size, header: toBase64Url(header) };
}

/** The message of `bindContent`'s error (to tell it from a chunk that does not decrypt). */
export const CONTENT_MISMATCH = 'content is not the one its metadata names';

/**
 * The stored bytes of a file, checked against the content its signed metadata names: the stream
 * errors (`unverifiable`) when its first 12 bytes are not the signed SRF1 header or its length is
 * not the signed size, so bytes of another file or of another encryption are not taken for it.
 */
export function bindContent(
  stream: ReadableStream<Uint8Array>,
  binding: ContentBinding,
): ReadableStream<Uint8Array> {
  const header = fromBase64Url(binding.header);
  let seen = 0;
  const mismatch = () => new E2eeError('unverifiable', CONTENT_MISMATCH);
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let i = 0; i < chunk.length && seen + i < header.length; i++) {
          if (chunk[i] !== header[seen + i]) throw mismatch();
        }
        seen += chunk.length;
        if (seen > binding.size) throw mismatch();
        controller.enqueue(chunk);
      },
      flush() {
        if (seen !== binding.size) throw mismatch();
      },
    }),
  );
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

function associatedData(kind: Kind, ringId: string, objectId: string, pin: SignedPin): Bytes {
  return encodeFields(
    domainOf(kind),
    ringId,
    objectId,
    FORMAT,
    pin.signer,
    String(pin.epoch),
    String(pin.logSeq),
    pin.logHash,
  );
}

async function seal(
  kind: Kind,
  options: {
    ringId: string;
    objectId: string;
    key: CryptoKey;
    pin: MetaPin;
    plain: object;
    signer: { memberId: string; signingPrivateKey: CryptoKey };
  },
): Promise<string> {
  const { ringId, objectId, key, plain, signer } = options;
  assertWireId(ringId, 'ringId');
  assertWireId(objectId, 'objectId');
  assertPin(options.pin);
  if (!SIGNER.test(signer.memberId)) throw new E2eeError('invalid_format', 'signer: invalid identifier');
  const pin: SignedPin = { ...options.pin, signer: signer.memberId };
  const nonce = randomBytes(NONCE_BYTES);
  const ad = associatedData(kind, ringId, objectId, pin);
  const ct = new Uint8Array(
    await subtle().encrypt(
      { name: 'AES-GCM', iv: nonce, additionalData: ad },
      key,
      padMeta(JSON.stringify(plain)),
    ),
  );
  const body = concatBytes(nonce, ct);
  const sig = await signDetached(signer.signingPrivateKey, domainOf(kind), encodeFields(ad, body));
  return [
    FORMAT,
    String(pin.epoch),
    String(pin.logSeq),
    pin.logHash,
    pin.signer,
    toBase64Url(body),
    toBase64Url(sig),
  ].join('.');
}

/**
 * The signer and pin a sealed blob names in clear (to look up its keys in the log and, for a
 * folder, the epoch key), or undefined for a malformed blob. Nothing here is verified yet.
 */
export function pinOfMeta(sealed: string): SignedPin | undefined {
  const parts = sealed.split('.');
  if (sealed.length > MAX_SEALED_META_LENGTH || parts.length !== 7 || parts[0] !== FORMAT) return undefined;
  const [, epoch, logSeq, logHash, signer] = parts as [string, string, string, string, string];
  if (!DECIMAL.test(epoch) || !DECIMAL.test(logSeq) || !LOG_HASH.test(logHash) || !SIGNER.test(signer))
    return undefined;
  const pin = { signer, epoch: Number(epoch), logSeq: Number(logSeq), logHash };
  try {
    assertPin(pin);
  } catch {
    return undefined;
  }
  return pin;
}

/** The signer a sealed blob names, or undefined for a malformed blob. */
export function signerOfMeta(sealed: string): string | undefined {
  return pinOfMeta(sealed)?.signer;
}

/** A sealed blob's wire shape (the server's check: no key needed). */
export function isSealedMeta(value: string): boolean {
  const parts = value.split('.');
  return (
    pinOfMeta(value) !== undefined &&
    /^[A-Za-z0-9_-]{40,}$/.test(parts[5] ?? '') &&
    /^[A-Za-z0-9_-]{86}$/.test(parts[6] ?? '')
  );
}

async function open(
  kind: Kind,
  options: {
    ringId: string;
    objectId: string;
    key: (pin: SignedPin) => Promise<CryptoKey>;
    sealed: string;
    signerKeys: SignerKeys;
    /** The pin must not be older than this log position (its epoch's creation point). */
    minLogSeq?: number | undefined;
  },
): Promise<{ plain: Record<string, unknown>; pin: SignedPin }> {
  const { ringId, objectId, sealed, signerKeys } = options;
  const pin = pinOfMeta(sealed);
  if (!pin || !isSealedMeta(sealed)) throw new E2eeError('invalid_format', 'metadata: malformed');
  if (options.minLogSeq !== undefined && pin.logSeq < options.minLogSeq)
    throw new E2eeError('unverifiable', 'metadata signed before its epoch existed');
  const parts = sealed.split('.');
  const body = fromBase64Url(parts[5]!);
  const sig = fromBase64Url(parts[6]!);
  const ad = associatedData(kind, ringId, objectId, pin);
  let signed = false;
  for (const key of await signerKeys(pin)) {
    if (await verifyDetached(key, domainOf(kind), encodeFields(ad, body), sig)) {
      signed = true;
      break;
    }
  }
  if (!signed)
    throw new E2eeError('unverifiable', 'metadata: no signature of the signer’s key at its log position');
  const key = await options.key(pin);
  let text: string;
  try {
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
  return { plain: plain as Record<string, unknown>, pin };
}

const pinOnly = ({ epoch, logSeq, logHash }: MetaPin): MetaPin => ({ epoch, logSeq, logHash });

/**
 * Seals a file's metadata under its file key, bound to the Ring and the file id, signed by
 * `signer` (the uploader; or the member who renames or migrates it) at `pin`.
 */
export async function sealFileMeta(options: {
  ringId: string;
  fileId: string;
  fileKey: Uint8Array;
  meta: FileMeta;
  pin: MetaPin;
  signer: { memberId: string; signingPrivateKey: CryptoKey };
}): Promise<string> {
  const meta = { ...options.meta, name: options.meta.name.normalize('NFC') };
  assertMetaName(meta.name);
  assertIdOrRoot(meta.folder, 'folder');
  assertIdOrRoot(meta.uploader, 'uploader');
  assertVersion(meta.version);
  assertContent(meta.content);
  if (typeof meta.type !== 'string' || meta.type.length > 255 || !/^[\x20-\x7e]*$/.test(meta.type))
    throw new E2eeError('invalid_format', 'type');
  return seal('file', {
    ringId: options.ringId,
    objectId: options.fileId,
    key: await fileMetaKey(options.fileKey, options.ringId),
    pin: options.pin,
    plain: {
      name: meta.name,
      type: meta.type,
      folder: meta.folder,
      uploader: meta.uploader,
      version: meta.version,
      content: meta.content,
    },
    signer: options.signer,
  });
}

/**
 * Opens a file's metadata: throws `unverifiable` when it is not signed by the key the log gives
 * its signer at its pin (or the signer was removed there), was sealed for another file or Ring,
 * is pinned before `minLogSeq`, or was altered; `invalid_format` for a bad shape.
 */
export async function openFileMeta(options: {
  ringId: string;
  fileId: string;
  fileKey: Uint8Array;
  sealed: string;
  signerKeys: SignerKeys;
  /** Log seq at which the epoch of the file's upload wrap was created, when known. */
  minLogSeq?: number | undefined;
}): Promise<OpenedMeta<FileMeta>> {
  const { plain, pin } = await open('file', {
    ringId: options.ringId,
    objectId: options.fileId,
    key: () => fileMetaKey(options.fileKey, options.ringId),
    sealed: options.sealed,
    signerKeys: options.signerKeys,
    minLogSeq: options.minLogSeq,
  });
  const { name, type, folder, uploader, version, content } = plain;
  assertMetaName(name);
  assertIdOrRoot(folder, 'folder');
  assertIdOrRoot(uploader, 'uploader');
  assertVersion(version);
  assertContent(content);
  if (typeof type !== 'string') throw new E2eeError('invalid_format', 'type');
  return {
    meta: { name, type, folder, uploader, version, content },
    signer: pin.signer,
    pin: pinOnly(pin),
  };
}

/**
 * Seals a folder's name and parent under a key of `epochKey` (the epoch the signer writes in),
 * bound to the folder id, signed at `pin` (whose epoch is `epochKey`'s).
 */
export async function sealFolderMeta(options: {
  ringId: string;
  folderId: string;
  epochKey: EpochKey;
  meta: FolderMeta;
  pin: Omit<MetaPin, 'epoch'>;
  signer: { memberId: string; signingPrivateKey: CryptoKey };
}): Promise<string> {
  const meta = { ...options.meta, name: options.meta.name.normalize('NFC') };
  assertMetaName(meta.name);
  assertIdOrRoot(meta.parent, 'parent');
  assertVersion(meta.version);
  return seal('folder', {
    ringId: options.ringId,
    objectId: options.folderId,
    key: await folderMetaKey(options.epochKey, options.ringId),
    pin: { ...options.pin, epoch: options.epochKey.epoch },
    plain: { name: meta.name, parent: meta.parent, version: meta.version },
    signer: options.signer,
  });
}

/**
 * Opens a folder's metadata with the key of the epoch it names (`missing_key` when this member
 * does not hold it); refused like `openFileMeta`, and when pinned before that epoch's creation.
 */
export async function openFolderMeta(options: {
  ringId: string;
  folderId: string;
  epochKey: (epoch: number) => EpochKey | undefined;
  sealed: string;
  signerKeys: SignerKeys;
}): Promise<OpenedMeta<FolderMeta>> {
  const claimed = pinOfMeta(options.sealed);
  const epochKey = claimed ? options.epochKey(claimed.epoch) : undefined;
  if (claimed && !epochKey) throw new E2eeError('missing_key', `epoch ${claimed.epoch} key unknown`);
  const { plain, pin } = await open('folder', {
    ringId: options.ringId,
    objectId: options.folderId,
    key: () => folderMetaKey(epochKey!, options.ringId),
    sealed: options.sealed,
    signerKeys: options.signerKeys,
    minLogSeq: epochKey?.logSeq,
  });
  const { name, parent, version } = plain;
  assertMetaName(name);
  assertIdOrRoot(parent, 'parent');
  assertVersion(version);
  return { meta: { name, parent, version }, signer: pin.signer, pin: pinOnly(pin) };
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
