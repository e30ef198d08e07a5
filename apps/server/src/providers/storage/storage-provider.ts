import { Transform, type Readable, type TransformCallback } from 'node:stream';

/** An object as listed: its key and size in bytes. */
export interface StoredObject {
  key: string;
  size: number;
}

/** Bytes `start` to `end`, both included (an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/** A write went past its byte limit: it was aborted and left nothing behind. */
export class StorageLimitError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
    this.name = 'StorageLimitError';
  }
}

/** No object under that key. */
export class StorageNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`no object ${key}`);
    this.name = 'StorageNotFoundError';
  }
}

/**
 * Where Ring files live, behind one interface: the local disk under DATA_DIR (one instance, or a
 * shared volume) or an S3-compatible bucket (several instances). Keys are `<ringId>/<storageKey>`
 * made of safe segments; writes stream, so no file is ever held whole in memory, and a failed or
 * refused write leaves no object, part or temporary file behind.
 */
export interface StorageProvider {
  readonly kind: 'local' | 's3';
  /** True when objects live under DATA_DIR (so a walk of DATA_DIR already counts them). */
  readonly insideDataDir: boolean;
  /**
   * Streams `body` into `key`. Past `maxBytes` the write is aborted with StorageLimitError; any
   * error (the body's included) removes what was written. Resolves with the stored size.
   */
  put(key: string, body: Readable, options: { maxBytes: number }): Promise<{ size: number }>;
  /** Moves a finished local file (a completed tus upload) into `key`; the file is gone after. */
  putFile(key: string, filePath: string): Promise<{ size: number }>;
  /** The object's bytes, or a byte range of them; StorageNotFoundError if there is none. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Removes one object; a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object whose key starts with `prefix` (a Ring's `<ringId>/`). */
  deletePrefix(prefix: string): Promise<number>;
  /** Every object, or those under `prefix`, in no particular order. */
  list(prefix?: string): AsyncIterable<StoredObject>;
  /** Removes leftovers of writes interrupted by a crash, older than `olderThanMs`. */
  purgeIncomplete(olderThanMs: number): Promise<number>;
  /** Resolves when the storage answers and may be written (the folder, or the bucket); /readyz. */
  checkReachable(): Promise<void>;
  close(): void;
}

const KEY_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** Keys are 1 to 8 segments of letters, digits, `.`, `_`, `-` (never `.`/`..`), joined by "/". */
export function isStorageKey(key: string): boolean {
  const segments = key.split('/');
  return (
    key.length <= 1024 &&
    segments.length <= 8 &&
    segments.every((s) => KEY_SEGMENT.test(s) && s !== '.' && s !== '..')
  );
}

export function assertStorageKey(key: string): void {
  if (!isStorageKey(key)) throw new Error(`invalid storage key ${JSON.stringify(key.slice(0, 100))}`);
}

/** A key prefix: "" (everything) or whole segments ending with "/". */
export function assertStoragePrefix(prefix: string): void {
  if (prefix !== '' && !(prefix.endsWith('/') && isStorageKey(prefix.slice(0, -1))))
    throw new Error(`invalid storage prefix ${JSON.stringify(prefix.slice(0, 100))}`);
}

/** Passes bytes through and fails with StorageLimitError as soon as more than `limit` went by. */
export class ByteLimiter extends Transform {
  bytes = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) callback(new StorageLimitError(this.limit));
    else callback(null, chunk);
  }
}
