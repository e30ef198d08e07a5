// packages/e2ee is TypeScript: benchmark scripts (plain Node) load it bundled with esbuild, once
// per run, into a temporary module. Tests import the package directly (vitest compiles it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The @securering/e2ee API, running on Node's WebCrypto. */
export async function loadE2ee() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-e2ee-'));
  const outfile = path.join(dir, 'e2ee.mjs');
  await build({
    entryPoints: [path.join(ROOT, 'packages/e2ee/src/index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
