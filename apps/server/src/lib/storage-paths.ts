import path from 'node:path';
import type { AppConfig } from '../config';

/** Where files live under DATA_DIR; one place so backups, deletions and uploads agree. */
export const storagePaths = {
  /** Encrypted files of one Ring. */
  ringFiles: (config: AppConfig, ringId: string) => path.join(config.dataDir, 'ring-files', ringId),
  allRingFiles: (config: AppConfig) => path.join(config.dataDir, 'ring-files'),
  /** Ring file writes in progress (same file system as ring-files, renamed into place when done). */
  storageTemp: (config: AppConfig) => path.join(config.dataDir, '.storage-tmp'),
  /** Resumable (tus) uploads in progress, with their metadata; moved into storage when complete. */
  tusUploads: (config: AppConfig) => path.join(config.dataDir, 'tus-uploads'),
  /** Logo and favicon uploaded in the back office, served under /uploads/. */
  uploads: (config: AppConfig) => path.join(config.dataDir, 'uploads'),
  backups: (config: AppConfig) => path.join(config.dataDir, 'backups'),
  sqliteFile: (config: AppConfig) => path.join(config.dataDir, 'securering.sqlite'),
};
