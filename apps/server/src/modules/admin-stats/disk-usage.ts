import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Total bytes of the regular files under a directory (symbolic links are not followed). */
export async function directorySize(root: string): Promise<number> {
  let total = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue; // Missing or unreadable: counts as empty.
    }
    const sizes = await Promise.all(
      entries.map(async (entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          pending.push(full);
          return 0;
        }
        if (!entry.isFile()) return 0;
        try {
          return (await fs.stat(full)).size;
        } catch {
          return 0; // Deleted while walking.
        }
      }),
    );
    for (const size of sizes) total += size;
  }
  return total;
}

/** Modification time of the newest file with an extension in a directory, or null if none. */
export async function newestFileTime(dir: string, extension: string): Promise<Date | null> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return null;
  }
  let newest: Date | null = null;
  for (const name of names.filter((n) => n.toLowerCase().endsWith(extension))) {
    try {
      const stat = await fs.stat(path.join(dir, name));
      if (stat.isFile() && (!newest || stat.mtime > newest)) newest = stat.mtime;
    } catch {
      // Deleted meanwhile.
    }
  }
  return newest;
}

/**
 * A value recomputed at most once per `ttlMs` (process time); concurrent callers share one
 * computation, and a failed computation is not kept.
 */
export class CachedValue<T> {
  private value: { at: number; promise: Promise<T> } | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly load: () => Promise<T>,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    const now = this.now();
    if (this.value && now - this.value.at < this.ttlMs) return this.value.promise;
    const promise = this.load();
    const entry = { at: now, promise };
    this.value = entry;
    promise.catch(() => {
      if (this.value === entry) this.value = undefined;
    });
    return promise;
  }
}
