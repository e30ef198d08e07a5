import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { StorageConfig } from '../src/config';

/** A local S3-compatible server (s3rver) on a free port, with one empty bucket. */
export interface TestS3 {
  config: Extract<StorageConfig, { provider: 's3' }>;
  /** Where s3rver keeps the bucket's objects on disk (to check nothing is left). */
  directory: string;
  close(): Promise<void>;
}

export async function startTestS3(bucket = 'securering-test'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const address = await server.run();
  return {
    config: {
      provider: 's3',
      bucket,
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${address.port}`,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      forcePathStyle: true,
    },
    directory,
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
