import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type * as S3SdkModule from '@aws-sdk/client-s3';
import type { CompletedPart, S3Client } from '@aws-sdk/client-s3';
import {
  ByteLimiter,
  StorageNotFoundError,
  assertStorageKey,
  assertStoragePrefix,
  type ByteRange,
  type StorageProvider,
  type StoredObject,
} from './storage-provider';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  endpoint: string | undefined;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  /** Every object key starts with this (default `ring-files/`). */
  keyPrefix?: string;
  /** Bytes per multipart part (S3 wants 5 MiB or more except for the last). */
  partBytes?: number;
}

/** Parts sent at the same time by one upload: bounds memory to about (n + 1) × part size. */
const PARTS_IN_FLIGHT = 2;
const DEFAULT_PART_BYTES = 6 * 1024 * 1024;
/** DeleteObjects takes at most 1000 keys. */
const DELETE_BATCH = 1000;

const statusOf = (error: unknown): number | undefined =>
  (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
const nameOf = (error: unknown): string | undefined => (error as { name?: string } | null)?.name;

type S3Sdk = typeof S3SdkModule;

/**
 * The AWS SDK (about 4.6 MiB of heap) is loaded by the first call of an S3 provider, so an
 * instance storing on its local disk never loads it (issue 30's memory budget). One promise.
 */
let s3Sdk: Promise<S3Sdk> | undefined;
const loadS3Sdk = (): Promise<S3Sdk> => (s3Sdk ??= import('@aws-sdk/client-s3'));

/**
 * Ring files in an S3-compatible bucket (AWS S3, MinIO, Garage, Scaleway, OVH…), under
 * `ring-files/<ringId>/<storageKey>`. Uploads stream: a file smaller than one part is sent with
 * a single PutObject of known length, a larger one as a multipart upload whose parts (6 MiB) are
 * read from the stream as they come, at most two in flight; any failure aborts the multipart
 * upload, so no part stays billed in the bucket.
 */
export class S3StorageProvider implements StorageProvider {
  readonly kind = 's3' as const;
  readonly insideDataDir = false;
  /** The SDK and its client, made at the first call (see loadS3Sdk); the client, once made. */
  private connecting: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;
  private client: S3Client | undefined;
  private readonly bucket: string;
  private readonly keyPrefix: string;
  private readonly partBytes: number;

  constructor(private readonly options: S3StorageOptions) {
    this.bucket = options.bucket;
    this.keyPrefix = options.keyPrefix ?? 'ring-files/';
    this.partBytes = Math.max(5 * 1024 * 1024, options.partBytes ?? DEFAULT_PART_BYTES);
  }

  private s3(): Promise<{ sdk: S3Sdk; client: S3Client }> {
    return (this.connecting ??= loadS3Sdk().then((sdk) => {
      const { options } = this;
      this.client = new sdk.S3Client({
        region: options.region,
        ...(options.endpoint ? { endpoint: options.endpoint } : {}),
        ...(options.credentials ? { credentials: options.credentials } : {}),
        forcePathStyle: options.forcePathStyle,
        // Checksums only where S3 requires them: many S3-compatible servers reject the trailing
        // checksums the SDK would otherwise add to every upload.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { sdk, client: this.client };
    }));
  }

  private objectKey(key: string): string {
    assertStorageKey(key);
    return `${this.keyPrefix}${key}`;
  }

  async put(key: string, body: Readable, options: { maxBytes: number }): Promise<{ size: number }> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.s3();
    const limiter = new ByteLimiter(options.maxBytes);
    body.on('error', (error) => limiter.destroy(error));
    const source = body.pipe(limiter);

    let uploadId: string | undefined;
    const completed: CompletedPart[] = [];
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;
    // Each part is filled in place (the stream's small chunks are copied once and dropped at once),
    // and part buffers are reused once sent: an upload holds at most PARTS_IN_FLIGHT + 1 of them.
    const spare: Buffer[] = [];
    let part: Buffer = Buffer.allocUnsafe(this.partBytes);
    let filled = 0;
    let total = 0;

    const sendPart = (data: Buffer, partNumber: number) => {
      const sending = client
        .send(
          new sdk.UploadPartCommand({
            Bucket: this.bucket,
            Key,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: data,
            ContentLength: data.length,
          }),
        )
        .then((result) => {
          completed[partNumber - 1] = { ETag: result.ETag, PartNumber: partNumber };
          spare.push(data);
        })
        .catch((error: unknown) => {
          failure ??= error;
        })
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    };

    try {
      let partNumber = 0;
      for await (const chunk of source as AsyncIterable<Buffer>) {
        total += chunk.length;
        for (let offset = 0; offset < chunk.length;) {
          const count = Math.min(chunk.length - offset, this.partBytes - filled);
          chunk.copy(part, filled, offset, offset + count);
          filled += count;
          offset += count;
          if (filled < this.partBytes) continue;
          if (!uploadId) {
            const created = await client.send(
              new sdk.CreateMultipartUploadCommand({
                Bucket: this.bucket,
                Key,
                ContentType: 'application/octet-stream',
              }),
            );
            uploadId = created.UploadId;
            if (!uploadId) throw new Error('S3 gave no UploadId');
          }
          sendPart(part, ++partNumber);
          part = spare.pop() ?? Buffer.allocUnsafe(this.partBytes);
          filled = 0;
          // Back-pressure: stop reading while the parts in flight are at their cap.
          while (inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(inFlight);
          if (failure) throw failure;
        }
      }
      const rest = part.subarray(0, filled);
      if (!uploadId) {
        await client.send(
          new sdk.PutObjectCommand({
            Bucket: this.bucket,
            Key,
            Body: rest,
            ContentLength: rest.length,
            ContentType: 'application/octet-stream',
          }),
        );
        return { size: total };
      }
      if (rest.length > 0) sendPart(rest, ++partNumber);
      await Promise.all(inFlight);
      if (failure) throw failure;
      await client.send(
        new sdk.CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key,
          UploadId: uploadId,
          MultipartUpload: { Parts: completed },
        }),
      );
      return { size: total };
    } catch (error) {
      source.destroy();
      await Promise.allSettled(inFlight);
      if (uploadId) {
        await client
          .send(new sdk.AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw error;
    }
  }

  async putFile(key: string, filePath: string): Promise<{ size: number }> {
    const { size } = await fs.promises.stat(filePath);
    const stored = await this.put(key, fs.createReadStream(filePath), { maxBytes: size });
    await fs.promises.rm(filePath, { force: true });
    return stored;
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const { sdk, client } = await this.s3();
    try {
      const result = await client.send(
        new sdk.GetObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      if (!result.Body) throw new StorageNotFoundError(key);
      return result.Body as Readable;
    } catch (error) {
      if (nameOf(error) === 'NoSuchKey' || statusOf(error) === 404) throw new StorageNotFoundError(key);
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    const { sdk, client } = await this.s3();
    try {
      const head = await client.send(
        new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      return { size: Number(head.ContentLength ?? 0) };
    } catch (error) {
      if (nameOf(error) === 'NotFound' || statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.s3();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertStoragePrefix(prefix);
    const { sdk, client } = await this.s3();
    let batch: string[] = [];
    let count = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const result = await client.send(
        new sdk.DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = result.Errors?.[0];
      if (failed) throw new Error(`S3 could not delete ${failed.Key ?? ''}: ${failed.Code ?? ''}`);
      count += batch.length;
      batch = [];
    };
    // Keys are collected first: deleting while paging could skip keys on some servers.
    const keys: string[] = [];
    for await (const object of this.list(prefix)) keys.push(`${this.keyPrefix}${object.key}`);
    for (const key of keys) {
      batch.push(key);
      if (batch.length >= DELETE_BATCH) await flush();
    }
    await flush();
    return count;
  }

  async *list(prefix = ''): AsyncIterable<StoredObject> {
    assertStoragePrefix(prefix);
    const { sdk, client } = await this.s3();
    let token: string | undefined;
    do {
      const page = await client.send(
        new sdk.ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: `${this.keyPrefix}${prefix}`,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key?.startsWith(this.keyPrefix)) continue;
        yield { key: object.Key.slice(this.keyPrefix.length), size: Number(object.Size ?? 0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Multipart uploads a crashed process never completed nor aborted. (A bucket lifecycle rule
   * "abort incomplete multipart uploads after 1 day" does the same on the provider's side.)
   */
  async purgeIncomplete(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    const { sdk, client } = await this.s3();
    try {
      const listed = await client.send(
        new sdk.ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.keyPrefix }),
      );
      for (const upload of listed.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId) continue;
        if (upload.Initiated && upload.Initiated.getTime() >= cutoff) continue;
        await client.send(
          new sdk.AbortMultipartUploadCommand({
            Bucket: this.bucket,
            Key: upload.Key,
            UploadId: upload.UploadId,
          }),
        );
        removed++;
      }
    } catch (error) {
      // Some S3-compatible servers do not list multipart uploads: their lifecycle rules apply.
      if (nameOf(error) !== 'NotImplemented' && statusOf(error) !== 501) throw error;
    }
    return removed;
  }

  async checkReachable(): Promise<void> {
    const { sdk, client } = await this.s3();
    await client.send(new sdk.HeadBucketCommand({ Bucket: this.bucket }));
  }

  /** Frees the client's sockets; a provider never called has none (and no SDK loaded). */
  close(): void {
    this.client?.destroy();
  }
}
