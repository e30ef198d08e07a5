import type { AppConfig } from '../../config';
import { storagePaths } from '../../lib/storage-paths';
import { LocalStorageProvider } from './local-storage';
import { S3StorageProvider } from './s3-storage';
import type { StorageProvider } from './storage-provider';

/** The storage the configuration names: S3 when S3_BUCKET is set, else DATA_DIR/ring-files. */
export function createStorageProvider(config: AppConfig): StorageProvider {
  const storage = config.storage;
  if (storage.provider === 's3') {
    return new S3StorageProvider({
      bucket: storage.bucket,
      region: storage.region,
      endpoint: storage.endpoint,
      credentials: storage.credentials,
      forcePathStyle: storage.forcePathStyle,
    });
  }
  return new LocalStorageProvider(storagePaths.allRingFiles(config), storagePaths.storageTemp(config));
}
