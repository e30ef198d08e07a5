// How the built server is run: `npm start`, `npm run cluster`, the browser tests and the
// benchmarks all start it with these Node.js options, so that what they measure is what runs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built server (scripts/build.mjs). */
export const SERVER_MAIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../apps/server/dist/main.js',
);

/**
 * The server's V8 options (issue 30). `--max-semi-space-size=8`: the young generation grows to
 * 2 × 8 MiB at most instead of 2 × 16. Each message's fan-out to hundreds of sockets allocates
 * about 2 KiB per socket, and V8 grew the young generation to its largest while those writes were
 * in flight: 16 MiB more resident memory on every instance, for 0.1 s less collection per minute
 * at 20 messages/s to 300 sockets (bench/fanout.mjs, docs/BENCHMARKS.md). Plain socket.io reaches
 * 2 × 8 MiB under the same load.
 */
export const SERVER_NODE_OPTIONS = ['--max-semi-space-size=8'];

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
