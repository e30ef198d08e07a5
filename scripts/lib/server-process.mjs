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
 * The server's environment besides the operator's own (which wins): how glibc's malloc keeps the
 * memory freed by native code (SQLite, sockets, V8's compiler and collector threads, Argon2).
 * - `MALLOC_ARENA_MAX=1`: one arena for every thread. By default glibc gives each thread that
 *   allocates an arena of its own and keeps what the thread freed there: 8 MiB more resident
 *   memory per instance after a fan-out run than with 2 arenas, and 2 arenas 3 to 4 MiB more than
 *   one (issue 30).
 * - `MALLOC_MMAP_THRESHOLD_=131072`: blocks of 128 KiB and more are mapped apart and given back to
 *   the system when freed. Without it glibc raises the threshold to the size of the largest block
 *   freed, and then keeps such blocks in its arena: Argon2's 19 MiB per password hash stayed
 *   resident after the logins (5 MiB more RSS at the end of a fan-out run). Neither changed the
 *   CPU time per delivery measurably (docs/BENCHMARKS.md).
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' };

/** The server's environment: SERVER_ENV under `env` (process.env by default). */
export function serverEnv(env = process.env) {
  return { ...SERVER_ENV, ...env };
}

/** The arguments of `node` that start the server, with `extra` Node.js options before the script. */
export function serverArgs(extra = []) {
  return [...SERVER_NODE_OPTIONS, ...extra, SERVER_MAIN];
}
