// The workspace packages are TypeScript: benchmark scripts and drivers (plain Node) load them
// bundled with esbuild, once per run, into a temporary module. Tests import the packages directly
// (vitest compiles them).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Bundles for Node with esbuild (`options`: the entry, plus any esbuild option) into a temporary
 * module, imports it and removes the file.
 */
export async function importBundle(label, options) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `securering-${label}-`));
  const outfile = path.join(dir, `${label}.mjs`);
  await build({
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    ...options,
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** packages/<name> bundled for Node and imported. */
const loadWorkspacePackage = (name) =>
  importBundle(name, { entryPoints: [path.join(ROOT, `packages/${name}/src/index.ts`)] });

/** The @securering/e2ee API, running on Node's WebCrypto. */
export const loadE2ee = () => loadWorkspacePackage('e2ee');

/** The @securering/contract API (schemas, constants, the Ring connection policy). */
export const loadContract = () => loadWorkspacePackage('contract');
