import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalStorageProvider } from './local-storage';

describe('LocalStorageProvider.put', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('leaves no temporary file when the body fails at once, even many times concurrently', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'local-storage-'));
    dirs.push(base);
    const tempDir = path.join(base, '.storage-tmp');
    const storage = new LocalStorageProvider(path.join(base, 'ring-files'), tempDir);
    const failing = () =>
      new Readable({
        read() {
          this.destroy(new Error('connexion coupée'));
        },
      });
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => storage.put(`ring-1/objet-${i}`, failing(), { maxBytes: 1024 })),
    );
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    // A file whose open() was still in flight would appear after the rejection: give it time.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fs.readdirSync(tempDir)).toEqual([]);
    expect(fs.existsSync(path.join(base, 'ring-files', 'ring-1'))).toBe(false);
  });
});
