// How the built server is run: `npm start`, `npm run cluster`, the browser tests and the
// benchmarks all start it with these Node.js options and this environment, so that what they
// measure is what runs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built server (scripts/build.mjs). */
export const SERVER_MAIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../apps/server/dist/main.js',
);

/**
 * The server's Node.js options: none besides V8's defaults. Measured and not taken (issue 30,
 * docs/BENCHMARKS.md): `--max-semi-space-size=8` caps the young generation at 2 × 8 MiB instead
 * of 2 × 16 and saves 16 MiB of resident memory under chat load, but the collector then runs
 * twice as often during fan-outs and the server spends 12 % more CPU per delivery.
 */
export const SERVER_NODE_OPTIONS = [];

/**
 * The server's environment besides the operator's own (which wins). `MALLOC_ARENA_MAX=2`: glibc's
 * allocator gives each thread that allocates (V8's compiler and collector threads, libuv's pool)
 * an arena of its own, and keeps what they freed there: 8 MiB of resident memory per instance
 * after a fan-out run, against 2 arenas shared by every thread (issue 30).
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: '2' };

/** The server's environment: SERVER_ENV under `env` (process.env by default). */
export function serverEnv(env = process.env) {
  return { ...SERVER_ENV, ...env };
}

/** The arguments of `node` that start the server, with `extra` Node.js options before the script. */
export function serverArgs(extra = []) {
  return [...SERVER_NODE_OPTIONS, ...extra, SERVER_MAIN];
}
