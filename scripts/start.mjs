#!/usr/bin/env node
// `npm start`: build what is missing or stale, then run the server (which migrates and seeds).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverArgs, serverEnv } from './lib/server-process.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

// With the server's Node.js options (scripts/lib/server-process.mjs) and without
// --enable-source-maps: Node would keep the server's source map parsed in the heap, 14 MiB of
// resident memory on every instance (issue 30). The bundle is not minified, so a stack trace's
// dist/main.js positions read as they are; the map stays next to it for tools.
const server = spawn(process.execPath, serverArgs(), {
  cwd: root,
  env: serverEnv(),
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
