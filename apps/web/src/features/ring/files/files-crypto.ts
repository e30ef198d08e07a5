import type { TRingFile } from '@securering/contract';
import {
  type EpochKey,
  type SeekableFileEncryptor,
  FILE_CHUNK_BYTES,
  FILE_HEADER_BYTES,
  ciphertextSize,
  createSeekableFileEncryptor,
  decryptName,
  encryptName,
  generateFileKey,
  unwrapFileKey,
  wrapFileKey,
} from '@securering/e2ee';
import { extensionOf } from './files-policy';

/**
 * The files tab's encryption (ADR 0002, issue 12): a random key per file wrapped under the current
 * epoch key and bound to the Ring and the file id, contents in the SRF1 STREAM format read from the
 * File a part at a time. Names are in each file's signed metadata (files-meta.ts, issue 27); the
 * name helpers here read (and, in tests, write) the names of files from before it.
 */

/** A name's decryption, or undefined when it does not decrypt (shown as "Nom illisible"). */
export function readName(namesKey: Uint8Array, ringId: string, encrypted: string): string | undefined {
  try {
    return decryptName(namesKey, ringId, encrypted);
  } catch {
    return undefined;
  }
}

/** The display name of a listed file: its original name, else its name. */
export function readFileName(namesKey: Uint8Array, ringId: string, file: TRingFile): string | undefined {
  return readName(namesKey, ringId, file.original_name) ?? readName(namesKey, ringId, file.name);
}

/** The encrypted name fields of upload.php / tus / rename.php for a plain file name. */
export function encryptFileNames(
  namesKey: Uint8Array,
  ringId: string,
  name: string,
): { name: string; original_name: string; extension: string } {
  const encrypted = encryptName(namesKey, ringId, name);
  const extension = extensionOf(name);
  return {
    name: encrypted,
    original_name: encrypted,
    extension: extension === '' ? '' : encryptName(namesKey, ringId, extension),
  };
}

/** A new file's id and key, the key wrapped under `epochKey` for this Ring and id. */
export async function newFileKey(epochKey: EpochKey, ringId: string) {
  const fileId = crypto.randomUUID();
  const fileKey = generateFileKey();
  const wrapped = await wrapFileKey(fileKey, epochKey, { ringId, fileId });
  return { fileId, fileKey, wrapped };
}

/**
 * The raw key of a listed file, or undefined when this member holds the epoch key of none of its
 * wraps (the upload's, then those given to members admitted later, `key_wraps`).
 */
export async function openFileKey(
  file: Pick<TRingFile, 'id' | 'file_key'> & { key_wraps?: TRingFile['key_wraps'] },
  ringId: string,
  epochKey: (epoch: number) => EpochKey | undefined,
): Promise<Uint8Array | undefined> {
  for (const wrapped of [file.file_key, ...(file.key_wraps ?? [])]) {
    const key = wrapped ? epochKey(wrapped.epoch) : undefined;
    if (wrapped && key) return unwrapFileKey(wrapped, key, { ringId, fileId: file.id });
  }
  return undefined;
}

/**
 * A File's SRF1 ciphertext, of exact known size, any byte range of which is produced on demand:
 * the plaintext chunks the range covers are read from the File and encrypted by index. The same
 * range always gives the same bytes (same key, header and content: browsers refuse to read a File
 * that changed on disk), which is what lets an interrupted upload resume where the server stopped.
 */
export class EncryptedFile {
  readonly size: number;

  private constructor(
    private readonly file: Blob,
    private readonly encryptor: SeekableFileEncryptor,
  ) {
    this.size = ciphertextSize(file.size);
  }

  /** The SRF1 header that starts the ciphertext (what the signed metadata binds, with the size). */
  get header(): Uint8Array {
    return this.encryptor.header;
  }

  static async open(file: Blob, fileKey: Uint8Array): Promise<EncryptedFile> {
    return new EncryptedFile(file, await createSeekableFileEncryptor(fileKey, file.size));
  }

  /** Ciphertext bytes [start, end) (end clamped to the size), as a Blob. */
  async slice(start: number, end: number): Promise<Blob> {
    const stop = Math.min(end, this.size);
    if (!(start >= 0) || start >= stop) return new Blob([]);
    const parts: BlobPart[] = [];
    const { header } = this.encryptor;
    if (start < FILE_HEADER_BYTES) parts.push(header.slice(start, Math.min(FILE_HEADER_BYTES, stop)));
    if (stop > FILE_HEADER_BYTES) {
      const sealedChunk = FILE_CHUNK_BYTES + 16;
      const body = (offset: number) => Math.max(0, offset - FILE_HEADER_BYTES);
      const first = Math.floor(body(start) / sealedChunk);
      const last = Math.floor((body(stop) - 1) / sealedChunk);
      const plainStart = first * FILE_CHUNK_BYTES;
      const plainEnd = Math.min(this.file.size, (last + 1) * FILE_CHUNK_BYTES);
      const plain = new Uint8Array(await this.file.slice(plainStart, plainEnd).arrayBuffer());
      for (let index = first; index <= last; index++) {
        const at = (index - first) * FILE_CHUNK_BYTES;
        const sealed = await this.encryptor.encryptChunkAt(
          index,
          plain.subarray(at, Math.min(plain.length, at + FILE_CHUNK_BYTES)),
        );
        const chunkStart = FILE_HEADER_BYTES + index * sealedChunk;
        parts.push(sealed.slice(Math.max(0, start - chunkStart), Math.min(sealed.length, stop - chunkStart)));
      }
    }
    return new Blob(parts);
  }
}
