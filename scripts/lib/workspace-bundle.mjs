// The workspace packages are TypeScript: benchmark scripts and drivers (plain Node) load them
// bundled with esbuild, once per run, into a temporary module. Tests import the packages directly
// (vitest compiles them).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** packages/<name> bundled for Node and imported. */
async function loadWorkspacePackage(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `securering-${name}-`));
  const outfile = path.join(dir, `${name}.mjs`);
  await build({
    entryPoints: [path.join(ROOT, `packages/${name}/src/index.ts`)],
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

/** The @securering/e2ee API, running on Node's WebCrypto. */
export const loadE2ee = () => loadWorkspacePackage('e2ee');

/** The @securering/contract API (schemas, constants, the Ring connection policy). */
export const loadContract = () => loadWorkspacePackage('contract');
