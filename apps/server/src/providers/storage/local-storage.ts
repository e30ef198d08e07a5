import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ensurePrivateDir } from '../../lib/data-dir';
import {
  ByteLimiter,
  StorageNotFoundError,
  assertStorageKey,
  assertStoragePrefix,
  type ByteRange,
  type StorageProvider,
  type StoredObject,
} from './storage-provider';

/**
 * Ring files on the local disk: `<root>/<ringId>/<storageKey>` (root = DATA_DIR/ring-files).
 * A write goes to a temporary file beside the root (same file system) and is renamed into place
 * once complete, so a reader never sees a partial object and a failed write leaves nothing.
 */
export class LocalStorageProvider implements StorageProvider {
  readonly kind = 'local' as const;
  readonly insideDataDir = true;

  /**
   * @param root where objects live (DATA_DIR/ring-files)
   * @param tempDir where writes in progress live (DATA_DIR/.storage-tmp): same file system as root
   */
  constructor(
    private readonly root: string,
    private readonly tempDir: string,
  ) {}

  private pathOf(key: string): string {
    assertStorageKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  private async newTemp(): Promise<string> {
    await ensurePrivateDir(this.tempDir);
    return path.join(this.tempDir, `${randomUUID()}.part`);
  }

  /** Renames into place; across file systems (a mount point in between) copies then removes. */
  private async place(source: string, target: string): Promise<void> {
    await ensurePrivateDir(path.dirname(target));
    try {
      await fs.promises.rename(source, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await fs.promises.copyFile(source, target);
      await fs.promises.rm(source, { force: true });
    }
  }

  async put(key: string, body: Readable, options: { maxBytes: number }): Promise<{ size: number }> {
    const target = this.pathOf(key);
    // The body may fail while the temporary folder is made: the error stays on the stream
    // (`errored`) and rejects the pipeline below rather than going unhandled.
    const ignore = () => undefined;
    body.on('error', ignore);
    const temp = await this.newTemp();
    const limiter = new ByteLimiter(options.maxBytes);
    const out = fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 });
    try {
      await pipeline(body, limiter, out);
      await this.place(temp, target);
      return { size: limiter.bytes };
    } catch (error) {
      // A body that fails at once destroys the file stream before its open() returns: the file
      // then appears after that. Wait for the stream to close, then remove it (it leaked a .part
      // under load before).
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await fs.promises.rm(temp, { force: true });
      throw error;
    } finally {
      body.off('error', ignore);
    }
  }

  async putFile(key: string, filePath: string): Promise<{ size: number }> {
    const target = this.pathOf(key);
    const { size } = await fs.promises.stat(filePath);
    await this.place(filePath, target);
    return { size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.pathOf(key);
    // Open first, so a missing file is reported before any byte is promised to the client.
    const handle = await fs.promises.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new StorageNotFoundError(key);
      throw error;
    });
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    const stat = await fs.promises.stat(this.pathOf(key)).catch(() => undefined);
    return stat?.isFile() ? { size: stat.size } : undefined;
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    await fs.promises.rm(file, { force: true });
    // Drop the Ring's folder once its last file is gone.
    await fs.promises.rmdir(path.dirname(file)).catch(() => undefined);
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertStoragePrefix(prefix);
    let count = 0;
    for await (const _object of this.list(prefix)) count++;
    const dir = prefix === '' ? this.root : path.join(this.root, ...prefix.slice(0, -1).split('/'));
    await fs.promises.rm(dir, { recursive: true, force: true });
    return count;
  }

  async *list(prefix = ''): AsyncIterable<StoredObject> {
    assertStoragePrefix(prefix);
    const start = prefix === '' ? [] : prefix.slice(0, -1).split('/');
    const pending: string[][] = [start];
    while (pending.length > 0) {
      const parts = pending.pop()!;
      const entries = await fs.promises
        .readdir(path.join(this.root, ...parts), { withFileTypes: true })
        .catch(() => []);
      for (const entry of entries) {
        if (entry.isDirectory()) pending.push([...parts, entry.name]);
        else if (entry.isFile()) {
          const stat = await fs.promises
            .stat(path.join(this.root, ...parts, entry.name))
            .catch(() => undefined);
          if (stat) yield { key: [...parts, entry.name].join('/'), size: stat.size };
        }
        // Links and special files are never followed.
      }
    }
  }

  async purgeIncomplete(olderThanMs: number): Promise<number> {
    const names = await fs.promises.readdir(this.tempDir).catch(() => [] as string[]);
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const name of names) {
      const full = path.join(this.tempDir, name);
      const stat = await fs.promises.stat(full).catch(() => undefined);
      if (stat && stat.mtimeMs < cutoff) {
        await fs.promises.rm(full, { force: true, recursive: true });
        removed++;
      }
    }
    return removed;
  }

  async checkReachable(): Promise<void> {
    await ensurePrivateDir(this.root);
    await fs.promises.access(this.root, fs.constants.W_OK);
  }

  close(): void {}
}
