// How the built server is run: `npm start`, `npm run cluster`, the browser tests and the
// benchmarks all start it with these Node.js options and this environment, so that what they
// measure is what runs.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built server (scripts/build.mjs). */
export const SERVER_MAIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../apps/server/dist/main.js',
);

/**
 * The server's Node.js options (issue 30, docs/BENCHMARKS.md « Socket fan-out »):
 * - `--no-allocation-site-pretenuring`: V8 may decide, from what an allocation site's objects
 *   did so far, to allocate that site's objects directly in the old generation. With it, under
 *   chat load on PostgreSQL, the server promoted about 1.3 MB a second (against 0.1) in most runs,
 *   collected its old generation every 6–12 s and ended at 143–243 MiB of RSS (likely: objects
 *   allocated old that die young keep the young objects they point to alive until the next full
 *   collection, and those are promoted in turn). Without it: low promotion in every run measured,
 *   110–120 MiB of RSS, and less CPU per delivery (1.236 × against 1.435 × alternately).
 * - `--max-semi-space-size=8`: V8's young generation grows to two semi-spaces of 8 MiB at most
 *   (its default, 16 on this kind of machine). Since broadcasts are written as one frame per socket
 *   (realtime/broadcast-delivery.ts) a delivery allocates little, and the fan-out run kept the
 *   same CPU per delivery within its spread with it (0.90–1.09 × plain against 0.94–0.98 ×) while
 *   ending 12–16 MiB lower (146 MiB against 158 on PostgreSQL, 133 against 147 on SQLite). Before
 *   that change it cost 12 % more CPU per delivery.
 * Measured and not taken: `--max-semi-space-size=32`, `--single-threaded-gc`,
 * `--heap-growing-percent=50`, `--initial-old-space-size=32` (no full collection sooner).
 * An option this Node.js does not know is left out (V8's flags change between versions, and Node
 * refuses to start with an unknown one): see supportedNodeOptions.
 */
export const SERVER_NODE_OPTIONS = ['--no-allocation-site-pretenuring', '--max-semi-space-size=8'];

/**
 * The options of `options` this Node.js knows: its own (`nodeFlags`, as
 * `process.allowedNodeEnvironmentFlags`: `--enable-source-maps`…) and the V8 options that
 * `v8Options` (the text of `node --v8-options`) lists, in either form (`--name` or `--no-name`).
 */
export function supportedNodeOptions(options, v8Options, nodeFlags = process.allowedNodeEnvironmentFlags) {
  return options.filter((option) => {
    if (nodeFlags.has(option.split('=')[0])) return true;
    const match = /^--(?:no-)?([a-z0-9_-]+)(?:=.*)?$/i.exec(option);
    if (!match) return false;
    const name = match[1].replaceAll('_', '-');
    return new RegExp(`^\\s+--${name}(?=\\s|$)`, 'm').test(v8Options);
  });
}

let v8OptionsText;
/** SERVER_NODE_OPTIONS that this Node.js knows (`node --v8-options`, read once per process). */
export function serverNodeOptions() {
  v8OptionsText ??= execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  return supportedNodeOptions(SERVER_NODE_OPTIONS, v8OptionsText);
}

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
  return [...serverNodeOptions(), ...extra, SERVER_MAIN];
}
