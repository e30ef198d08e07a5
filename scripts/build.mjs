#!/usr/bin/env node
// Builds the web app and the server when their build is missing or stale (inputs changed since
// the last build), or always with --force. Used by `npm start`, `npm run build` and the e2e tests.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');

const targets = [
  {
    name: 'web',
    workspace: '@securering/web',
    output: 'apps/web/dist',
    inputs: [
      'apps/web/src',
      'apps/web/public',
      'apps/web/index.html',
      'apps/web/vite.config.ts',
      'apps/web/package.json',
    ],
  },
  {
    name: 'server',
    workspace: '@securering/server',
    output: 'apps/server/dist',
    inputs: ['apps/server/src', 'apps/server/build.mjs', 'apps/server/package.json'],
  },
];
// Both apps bundle the contract and the e2ee package: a change there makes both builds stale.
const shared = ['packages/contract/src', 'packages/e2ee/src', 'package-lock.json'];

function listFiles(entry) {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  const stat = fs.statSync(full);
  if (stat.isFile()) return [entry];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .filter((d) => !d.name.startsWith('.') && d.name !== 'node_modules')
    .flatMap((d) => listFiles(path.join(entry, d.name)))
    .filter((f) => !/\.test\.tsx?$/.test(f));
}

function hashInputs(inputs) {
  const hash = createHash('sha256');
  for (const file of [...inputs, ...shared].flatMap(listFiles).sort()) {
    hash.update(file);
    hash.update(fs.readFileSync(path.join(root, file)));
  }
  return hash.digest('hex');
}

for (const target of targets) {
  const stampFile = path.join(root, target.output, '.build-hash');
  const digest = hashInputs(target.inputs);
  const current = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : '';
  if (!force && current === digest) {
    console.log(`[build] ${target.name}: à jour`);
    continue;
  }
  console.log(`[build] ${target.name}: construction…`);
  const started = Date.now();
  // Always a production build: run from vitest (e2e global setup), NODE_ENV is `test`, and Vite
  // would then bundle React's development build (slower, larger, with dev-only warnings).
  const result = spawnSync('npm', ['run', 'build', '-w', target.workspace], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) {
    console.error(`[build] ${target.name}: échec`);
    process.exit(result.status ?? 1);
  }
  fs.mkdirSync(path.dirname(stampFile), { recursive: true });
  fs.writeFileSync(stampFile, digest);
  console.log(`[build] ${target.name}: terminé en ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
