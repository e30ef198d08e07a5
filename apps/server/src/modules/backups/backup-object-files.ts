import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { isStorageKey, type StorageProvider } from '../../providers/storage/storage-provider';

/** A Ring file of object storage as a backup archives it. */
export interface ObjectFileEntry {
  /** Name in the archive: `files/ring-files/<ringId>/<storageKey>`, as for files on disk. */
  name: string;
  objectKey: string;
  size: number;
}

/**
 * Ring files kept in object storage (S3) rather than under DATA_DIR: a backup reads them from
 * the bucket into the same archive entries as files on disk (`files/ring-files/…`), so an archive
 * moves between the two; a restore puts the archive's files into the bucket before the database
 * is replaced, removes what it added if that fails, and removes the objects the archive does not
 * have once it has committed.
 */
export class ObjectStorageFiles {
  constructor(
    private readonly storage: StorageProvider,
    private readonly logger: FastifyBaseLogger,
  ) {}

  async collect(): Promise<ObjectFileEntry[]> {
    const entries: ObjectFileEntry[] = [];
    for await (const object of this.storage.list()) {
      entries.push({ name: `files/ring-files/${object.key}`, objectKey: object.key, size: object.size });
    }
    return entries;
  }

  /** Every regular file under the staged `ring-files` folder, by its key. */
  private async stagedFiles(stagedRoot: string): Promise<Map<string, string>> {
    const files = new Map<string, string>();
    const walk = async (dir: string, parts: string[]): Promise<void> => {
      const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full, [...parts, entry.name]);
        else if (entry.isFile()) {
          const key = [...parts, entry.name].join('/');
          if (isStorageKey(key)) files.set(key, full);
          else this.logger.warn({ key }, 'backup: Ring file with a name storage cannot hold, not restored');
        }
      }
    };
    await walk(stagedRoot, []);
    return files;
  }

  /**
   * Uploads the restored Ring files (staged on disk) into storage. Answers the keys the archive
   * holds, and those that were not in storage before (to remove if the restore fails).
   */
  async push(stagedRoot: string): Promise<{ restored: Set<string>; added: string[] }> {
    const before = new Set<string>();
    for await (const object of this.storage.list()) before.add(object.key);
    const staged = await this.stagedFiles(stagedRoot);
    const added: string[] = [];
    for (const [key, file] of staged) {
      const { size } = await fs.promises.stat(file);
      await this.storage.put(key, fs.createReadStream(file), { maxBytes: size });
      if (!before.has(key)) added.push(key);
    }
    return { restored: new Set(staged.keys()), added };
  }

  /** After a failed restore: the objects it added go (the database still points at the old ones). */
  async dropAdded(added: string[]): Promise<void> {
    for (const key of added) await this.storage.delete(key).catch(() => undefined);
  }

  /** After a committed restore: objects the archive does not have belong to no file any more. */
  async dropOthers(restored: Set<string>): Promise<void> {
    const stale: string[] = [];
    for await (const object of this.storage.list()) if (!restored.has(object.key)) stale.push(object.key);
    for (const key of stale) await this.storage.delete(key);
  }
}
