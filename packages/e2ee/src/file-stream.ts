import {
  type Bytes,
  assertExactKeys,
  assertWireId,
  concatBytes,
  encodeFields,
  randomBytes,
  readBase64Field,
  toBase64,
  u32be,
} from './encoding';
import { E2eeError } from './errors';
import { type EpochKey, isEpochNumber } from './epoch-keys';

/** Plaintext bytes per chunk; every chunk but the last is exactly this size. */
export const FILE_CHUNK_BYTES = 65_536;
/** Size of the file header: magic "SRF1", version byte, 7-byte nonce prefix. */
export const FILE_HEADER_BYTES = 12;
/** Size of a file key (AES-256-GCM). */
export const FILE_KEY_BYTES = 32;

const TAG_BYTES = 16;
const CIPHER_CHUNK_BYTES = FILE_CHUNK_BYTES + TAG_BYTES;
const MAGIC = [0x53, 0x52, 0x46, 0x31]; // "SRF1"
const VERSION = 1;
const PREFIX_BYTES = 7;
const FILE_KEY_DOMAIN = 'securering/file-key/v1';

const subtle = () => globalThis.crypto.subtle;

/** A new random 256-bit file key (raw bytes: they are wrapped under the epoch key). */
export function generateFileKey(): Bytes {
  return randomBytes(FILE_KEY_BYTES);
}

function importFileKey(fileKey: Uint8Array): Promise<CryptoKey> {
  if (fileKey.length !== FILE_KEY_BYTES) throw new E2eeError('invalid_format', 'a file key has 32 bytes');
  return subtle().importKey('raw', new Uint8Array(fileKey), 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** STREAM nonce: 7-byte prefix ‖ 4-byte big-endian chunk counter ‖ last-chunk flag. */
function chunkNonce(prefix: Uint8Array, index: number, isLast: boolean): Bytes {
  return concatBytes(prefix, u32be(index), new Uint8Array([isLast ? 1 : 0]));
}

/** Encrypts a file chunk by chunk, in order; obtain one with `createFileEncryptor`. */
export interface FileEncryptor {
  /** The 12-byte header that starts the ciphertext (authenticated with every chunk). */
  readonly header: Bytes;
  /**
   * Encrypts the next chunk: exactly 64 KiB unless it is the last one (0 to 64 KiB; empty only
   * for an empty file). Chunks are numbered in call order.
   */
  encryptChunk(plain: Uint8Array, isLast: boolean): Promise<Bytes>;
}

/** Decrypts a file's chunks in order; obtain one with `createFileDecryptor`. */
export interface FileDecryptor {
  /** Decrypts the next chunk (64 KiB + 16 bytes unless last); refuses anything after the last. */
  decryptChunk(cipherChunk: Uint8Array, isLast: boolean): Promise<Bytes>;
  /** Throws `unverifiable` unless the last chunk was decrypted (the file is complete). */
  finish(): void;
}

/** Starts encrypting a file under its 32-byte key, with a fresh random nonce prefix. */
export async function createFileEncryptor(fileKey: Uint8Array): Promise<FileEncryptor> {
  const key = await importFileKey(fileKey);
  const header = concatBytes(new Uint8Array([...MAGIC, VERSION]), randomBytes(PREFIX_BYTES));
  const prefix = header.slice(MAGIC.length + 1);
  let next = 0;
  let ended = false;
  return {
    header,
    async encryptChunk(plain, isLast) {
      const sizeOk = isLast
        ? plain.length <= FILE_CHUNK_BYTES && (plain.length > 0 || next === 0)
        : plain.length === FILE_CHUNK_BYTES;
      if (ended || !sizeOk) throw new E2eeError('invalid_format', 'chunk out of order or of the wrong size');
      const index = next++;
      ended = isLast;
      const iv = chunkNonce(prefix, index, isLast);
      const sealed = await subtle().encrypt(
        { name: 'AES-GCM', iv, additionalData: header },
        key,
        new Uint8Array(plain),
      );
      return new Uint8Array(sealed);
    },
  };
}

/** Starts decrypting a file from its 12-byte header; throws `invalid_format` on a foreign header. */
export async function createFileDecryptor(fileKey: Uint8Array, header: Uint8Array): Promise<FileDecryptor> {
  const known = header.length === FILE_HEADER_BYTES && [...MAGIC, VERSION].every((b, i) => header[i] === b);
  if (!known) throw new E2eeError('invalid_format', 'not an SRF1 file');
  const key = await importFileKey(fileKey);
  const additionalData = new Uint8Array(header);
  const prefix = additionalData.slice(MAGIC.length + 1);
  let next = 0;
  let ended = false;
  let failed = false;
  return {
    async decryptChunk(cipherChunk, isLast) {
      const index = next++;
      const sizeOk = isLast
        ? cipherChunk.length <= CIPHER_CHUNK_BYTES &&
          (cipherChunk.length > TAG_BYTES || (index === 0 && cipherChunk.length === TAG_BYTES))
        : cipherChunk.length === CIPHER_CHUNK_BYTES;
      if (failed || ended || !sizeOk) {
        failed = true;
        throw new E2eeError('unverifiable', 'file chunk out of order, of the wrong size or after the end');
      }
      ended = isLast;
      try {
        const iv = chunkNonce(prefix, index, isLast);
        const plain = await subtle().decrypt(
          { name: 'AES-GCM', iv, additionalData },
          key,
          new Uint8Array(cipherChunk),
        );
        return new Uint8Array(plain);
      } catch {
        failed = true;
        throw new E2eeError('unverifiable', `file chunk ${index} does not decrypt`);
      }
    },
    finish() {
      if (failed || !ended) throw new E2eeError('unverifiable', 'file truncated: no final chunk');
    },
  };
}

/**
 * Encrypts the chunks of one file of known size in any order, each by its index: what a
 * resumable upload needs to send again the part after an interruption. AES-GCM is deterministic
 * for a key, nonce and plaintext, so a chunk encrypted twice gives the same bytes, and the output
 * is exactly the SRF1 file `createFileEncryptor` would give with this header.
 */
export interface SeekableFileEncryptor {
  /** The 12-byte header that starts the ciphertext. */
  readonly header: Bytes;
  readonly plainSize: number;
  /** Number of chunks (at least 1: an empty file has one empty final chunk). */
  readonly chunkCount: number;
  /**
   * Encrypts chunk `index`: the plaintext bytes [index × 64 KiB, +64 KiB) of the file (shorter
   * only for the last chunk). The caller must give the same bytes every time it asks for an index
   * (a browser `File`, whose reads fail once it changes on disk): two different plaintexts under
   * one nonce would break AES-GCM.
   */
  encryptChunkAt(index: number, plain: Uint8Array): Promise<Bytes>;
}

/** Starts a seekable encryption of a `plainSize`-byte file under its key, with a fresh nonce prefix. */
export async function createSeekableFileEncryptor(
  fileKey: Uint8Array,
  plainSize: number,
): Promise<SeekableFileEncryptor> {
  const total = ciphertextSize(plainSize);
  const key = await importFileKey(fileKey);
  const header = concatBytes(new Uint8Array([...MAGIC, VERSION]), randomBytes(PREFIX_BYTES));
  const prefix = header.slice(MAGIC.length + 1);
  const chunkCount = Math.ceil((total - FILE_HEADER_BYTES) / CIPHER_CHUNK_BYTES);
  return {
    header,
    plainSize,
    chunkCount,
    async encryptChunkAt(index, plain) {
      const isLast = index === chunkCount - 1;
      const expected = isLast ? plainSize - index * FILE_CHUNK_BYTES : FILE_CHUNK_BYTES;
      if (!Number.isInteger(index) || index < 0 || index >= chunkCount || plain.length !== expected) {
        throw new E2eeError('invalid_format', 'chunk index out of range or chunk of the wrong size');
      }
      const iv = chunkNonce(prefix, index, isLast);
      const sealed = await subtle().encrypt(
        { name: 'AES-GCM', iv, additionalData: header },
        key,
        new Uint8Array(plain),
      );
      return new Uint8Array(sealed);
    },
  };
}

/**
 * Cuts a byte stream into blocks of `size` bytes. A full block is handed on only once more data
 * arrives, so the block given at `end()` (possibly short or empty) is known to be the last.
 */
function blocks(size: number, onBlock: (block: Bytes, isLast: boolean) => Promise<void>) {
  let block = new Uint8Array(size);
  let filled = 0;
  return {
    async push(data: Uint8Array) {
      for (let offset = 0; offset < data.length;) {
        if (filled === size) {
          await onBlock(block, false);
          block = new Uint8Array(size);
          filled = 0;
        }
        const count = Math.min(size - filled, data.length - offset);
        block.set(data.subarray(offset, offset + count), filled);
        filled += count;
        offset += count;
      }
    },
    end: () => onBlock(block.subarray(0, filled), true),
  };
}

/** Encrypts a byte stream of any chunking into the SRF1 format (header, then sealed chunks). */
export function encryptStream(
  readable: ReadableStream<Uint8Array>,
  fileKey: Uint8Array,
): ReadableStream<Bytes> {
  let input: ReturnType<typeof blocks>;
  return readable.pipeThrough(
    new TransformStream<Uint8Array, Bytes>({
      async start(controller) {
        const encryptor = await createFileEncryptor(fileKey);
        controller.enqueue(encryptor.header);
        input = blocks(FILE_CHUNK_BYTES, async (block, isLast) => {
          controller.enqueue(await encryptor.encryptChunk(block, isLast));
        });
      },
      transform: (chunk) => input.push(chunk),
      flush: () => input.end(),
    }),
  );
}

/**
 * Decrypts an SRF1 byte stream of any chunking. Any alteration, reordering, truncation or extra
 * data errors the stream with `unverifiable` (or `invalid_format` for a foreign header). Chunks
 * are authentic as they come out, but the file is complete only if the stream closes without error.
 */
export function decryptStream(
  readable: ReadableStream<Uint8Array>,
  fileKey: Uint8Array,
): ReadableStream<Bytes> {
  let decryptor: FileDecryptor | undefined;
  let body: ReturnType<typeof blocks>;
  let headerBytes = new Uint8Array(0);
  return readable.pipeThrough(
    new TransformStream<Uint8Array, Bytes>({
      async transform(chunk, controller) {
        let data = chunk;
        if (!decryptor) {
          const needed = FILE_HEADER_BYTES - headerBytes.length;
          headerBytes = concatBytes(headerBytes, chunk.subarray(0, needed));
          data = chunk.subarray(needed);
          if (headerBytes.length < FILE_HEADER_BYTES) return;
          const opened = await createFileDecryptor(fileKey, headerBytes);
          decryptor = opened;
          body = blocks(CIPHER_CHUNK_BYTES, async (block, isLast) => {
            const plain = await opened.decryptChunk(block, isLast);
            if (plain.length > 0) controller.enqueue(plain);
          });
        }
        await body.push(data);
      },
      async flush() {
        if (!decryptor) throw new E2eeError('unverifiable', 'file truncated: incomplete header');
        await body.end();
        decryptor.finish();
      },
    }),
  );
}

/** Exact size of the SRF1 ciphertext of `plainSize` bytes (to check a quota before encrypting). */
export function ciphertextSize(plainSize: number): number {
  if (!Number.isSafeInteger(plainSize) || plainSize < 0) throw new E2eeError('invalid_format', 'size');
  const chunks = Math.max(1, Math.ceil(plainSize / FILE_CHUNK_BYTES));
  return FILE_HEADER_BYTES + plainSize + chunks * TAG_BYTES;
}

/** Exact plaintext size of an SRF1 ciphertext of `cipherSize` bytes; throws for impossible sizes. */
export function plaintextSize(cipherSize: number): number {
  const body = cipherSize - FILE_HEADER_BYTES;
  if (!Number.isSafeInteger(cipherSize) || body < TAG_BYTES) throw new E2eeError('invalid_format', 'size');
  const chunks = Math.ceil(body / CIPHER_CHUNK_BYTES);
  const last = body - (chunks - 1) * CIPHER_CHUNK_BYTES;
  if (last < TAG_BYTES || (chunks > 1 && last === TAG_BYTES)) throw new E2eeError('invalid_format', 'size');
  return body - chunks * TAG_BYTES;
}

/** A file key wrapped under an epoch key; `epoch` tells which epoch key unwraps it. */
export interface WrappedFileKey {
  v: 1;
  epoch: number;
  /** AES-GCM IV, base64 (12 bytes). */
  iv: string;
  /** The encrypted file key with its tag, base64 (48 bytes). */
  ct: string;
}

const WRAPPED_FIELDS = ['v', 'epoch', 'iv', 'ct'] as const;

function fileKeyAad(ringId: string, fileId: string, epoch: number): Bytes {
  return encodeFields(FILE_KEY_DOMAIN, ringId, fileId, String(epoch));
}

/**
 * Wraps a file key under the epoch's message key, bound to the Ring, the file id and the epoch
 * (associated data). File contents are single-layer AES-256-GCM at every level.
 */
export async function wrapFileKey(
  fileKeyRaw: Uint8Array,
  epochKey: EpochKey,
  target: { ringId: string; fileId: string },
): Promise<WrappedFileKey> {
  assertWireId(target.fileId, 'fileId');
  if (target.ringId !== epochKey.ringId) throw new E2eeError('invalid_format', 'epoch key of another Ring');
  if (fileKeyRaw.length !== FILE_KEY_BYTES) throw new E2eeError('invalid_format', 'a file key has 32 bytes');
  const iv = randomBytes(12);
  const additionalData = fileKeyAad(target.ringId, target.fileId, epochKey.epoch);
  const ct = await subtle().encrypt(
    { name: 'AES-GCM', iv, additionalData },
    epochKey.messageKey,
    new Uint8Array(fileKeyRaw),
  );
  return { v: 1, epoch: epochKey.epoch, iv: toBase64(iv), ct: toBase64(new Uint8Array(ct)) };
}

/**
 * Unwraps a file key with the key of the epoch it records. Throws `unverifiable` when it was
 * wrapped for another file, Ring or epoch, or was altered; `invalid_format` for a bad shape.
 */
export async function unwrapFileKey(
  wrapped: WrappedFileKey,
  epochKey: EpochKey,
  target: { ringId: string; fileId: string },
): Promise<Bytes> {
  assertExactKeys(wrapped, WRAPPED_FIELDS, 'wrapped file key');
  if (wrapped.v !== 1 || !isEpochNumber(wrapped.epoch)) {
    throw new E2eeError('invalid_format', 'wrapped file key: version or epoch');
  }
  const iv = readBase64Field(wrapped.iv, 'iv', 12);
  const ct = readBase64Field(wrapped.ct, 'ct', FILE_KEY_BYTES + TAG_BYTES);
  if (wrapped.epoch !== epochKey.epoch || target.ringId !== epochKey.ringId) {
    throw new E2eeError('unverifiable', 'wrapped under another epoch or Ring');
  }
  try {
    const additionalData = fileKeyAad(target.ringId, target.fileId, wrapped.epoch);
    return new Uint8Array(
      await subtle().decrypt({ name: 'AES-GCM', iv, additionalData }, epochKey.messageKey, ct),
    );
  } catch {
    throw new E2eeError('unverifiable', 'file key does not unwrap');
  }
}
