// Shared helpers for the benchmark scripts: start the built server as `npm start` runs it, give it
// a throw-away database, fire requests with bounded concurrency and summarise latencies.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import WebSocket from 'ws';
import { freePort } from '../scripts/lib/free-port.mjs';
import { serverEnv, serverNodeOptions } from '../scripts/lib/server-process.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BENCH_ADMIN = { username: 'admin', password: 'Bench-Admin-Password-1' };

/** Node/V8 flags given in the environment variable `name`, separated by spaces (none when unset). */
export function nodeFlagsFrom(name) {
  return process.env[name]?.split(' ').filter(Boolean) ?? [];
}

/**
 * Starts `apps/server/dist/main.js` (or `main`, another build's) with IP rate limits off (a
 * benchmark is one IP sending thousands of requests) and waits for /healthz.
 */
export async function startServer({
  dataDir,
  databaseUrl = '',
  execArgv = [],
  env = {},
  main = path.join(ROOT, 'apps/server/dist/main.js'),
}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  // BENCH_SERVER_NODE_FLAGS: Node/V8 flags for the server only (diagnostics, e.g. heap sizing).
  const extraFlags = nodeFlagsFrom('BENCH_SERVER_NODE_FLAGS');
  // The server's own options first (as `npm start`), so that a diagnostic flag can override them.
  const child = spawn(process.execPath, [...serverNodeOptions(), ...extraFlags, ...execArgv, main], {
    cwd: ROOT,
    env: serverEnv({
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: url,
      DATABASE_URL: databaseUrl,
      REDIS_URL: '',
      ADMIN_USERNAME: BENCH_ADMIN.username,
      ADMIN_PASSWORD: BENCH_ADMIN.password,
      RATE_LIMIT_PUBLIC_PER_MIN: '0',
      RATE_LIMIT_KEY_WRITES_PER_MIN: '0',
      LOG_LEVEL: 'warn',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // BENCH_SERVER_LOG=file: the server's output appended there (e.g. with --trace-gc in the flags).
  const log = process.env.BENCH_SERVER_LOG
    ? fs.createWriteStream(process.env.BENCH_SERVER_LOG, { flags: 'a' })
    : null;
  const onOutput = (chunk) => {
    // Kept for a start-up failure's message; the first megabyte is enough.
    if (output.length < 1e6) output += chunk;
    log?.write(chunk);
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited during start:\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server not ready after 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    /** The server's process id (benchmarks read its memory from /proc). */
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Runs `body` against a fresh database: SQLite in a temporary DATA_DIR, or a new PostgreSQL
 * database created next to `adminUrl` and dropped afterwards.
 */
export async function withDatabase(kind, adminUrl, body) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-bench-'));
  let databaseUrl = '';
  const name = `securering_bench_${process.pid}_${Date.now()}`;
  if (kind === 'postgres') {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
  }
  try {
    return await body({ dataDir, databaseUrl });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (kind === 'postgres') {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  }
}

/** The databases to run on: SQLite always, PostgreSQL when BENCH_DATABASE_URL is set. */
export function databaseKinds() {
  const available = process.env.BENCH_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  // BENCH_DATABASES=postgres (or sqlite): only those of the available ones, e.g. three PostgreSQL runs.
  const chosen = process.env.BENCH_DATABASES?.split(',').map((kind) => kind.trim());
  if (!chosen) return available;
  const kinds = available.filter((kind) => chosen.includes(kind));
  if (!kinds.length) throw new Error(`BENCH_DATABASES=${process.env.BENCH_DATABASES}: none of ${available}`);
  return kinds;
}

export async function json(url, { method = 'GET', token, body } = {}) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

export async function adminToken(url) {
  return (await json(`${url}/api/admin/auth/login.php`, { method: 'POST', body: BENCH_ADMIN })).token;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Sends `count` requests with at most `concurrency` in flight and returns throughput and
 * latency percentiles in milliseconds. Any failed request aborts the run: a benchmark of errors
 * measures nothing.
 */
export async function measure(count, concurrency, send) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  async function worker() {
    while (next < count) {
      next += 1;
      const t0 = performance.now();
      const res = await send();
      if (!res.ok) throw new Error(`request failed: ${res.status} ${(await res.text()).slice(0, 200)}`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    count,
    concurrency,
    rps: count / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}

/**
 * CPU seconds (user + system) a process has used so far (Linux /proc); with `mainThread`, its main
 * thread's only (a Node.js server's event loop, without the thread pool's work).
 */
export function cpuSeconds(pid, { mainThread = false } = {}) {
  return procStat(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`).cpu;
}

/**
 * A /proc `stat` file read: the command name, the CPU seconds (user + system) used so far, and
 * those of the children it has reaped (`cutime` + `cstime`). The command name is in parentheses
 * and may itself hold spaces or parentheses: the fields are counted after its last `)`.
 */
function procStat(file) {
  const stat = fs.readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    cpu: (Number(fields[11]) + Number(fields[12])) / 100,
    reapedCpu: (Number(fields[13]) + Number(fields[14])) / 100,
  };
}

/**
 * The CPU time of the processes whose command name is `name` (e.g. postgres), for
 * commandCpuUsed: each live one's own (user + system), by process id, and what their children that
 * have exited used (`cutime` + `cstime`, added to a process when it reaps them).
 */
export function commandCpuSnapshot(name) {
  const own = new Map();
  let reaped = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { command, cpu, reapedCpu } = procStat(`/proc/${entry}/stat`);
      if (command !== name) continue;
      own.set(entry, cpu);
      reaped += reapedCpu;
    } catch {
      // Gone meanwhile.
    }
  }
  return { own, reaped };
}

/**
 * CPU seconds those processes used between two snapshots, the ones that ended meanwhile included:
 * a PostgreSQL backend whose connection closes takes its time out of the live processes' sum (a
 * plain difference of sums could go down), and puts its whole life's time into its parent's
 * reaped time; what it had used before the first snapshot is taken back out.
 */
export function commandCpuUsed(before, after) {
  let used = after.reaped - before.reaped;
  for (const [pid, seconds] of after.own) used += seconds - (before.own.get(pid) ?? 0);
  for (const [pid, seconds] of before.own) if (!after.own.has(pid)) used -= seconds;
  return used;
}

/** CPU seconds of the whole machine so far (/proc/stat, every core): busy and in all. */
export function machineCpuSeconds() {
  const fields = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4];
  return { busy: (total - idle) / 100, total: total / 100 };
}

/** A process's resident memory in MiB (Linux /proc). */
export function rssMiB(pid) {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
  return line ? Number(line[1]) / 1024 : 0;
}

/**
 * A Node.js process's memory once its garbage is collected, read through its inspector (started
 * with `--inspect=127.0.0.1:<port>`): a full collection first, then `process.memoryUsage()` in the
 * process itself. RSS alone moves with the collector's timing (it once gave a negative growth for
 * 1,000 sockets); the live heap plus Buffers after a collection is what the sockets hold.
 * Resolves to MiB: { heap (live JS heap), external (Buffers and other memory outside the heap), rss }.
 */
export async function memoryAfterGc(inspectPort) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json();
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let nextId = 0;
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      const onMessage = (data) => {
        const message = JSON.parse(data.toString());
        if (message.id !== id) return;
        socket.off('message', onMessage);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    // Twice: a first collection can leave garbage that finalizers or weak maps free only later.
    for (let i = 0; i < 2; i++) await call('HeapProfiler.collectGarbage');
    const { result } = await call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    });
    const usage = JSON.parse(result.value);
    const mib = (bytes) => bytes / 1024 ** 2;
    return { heap: mib(usage.heapUsed), external: mib(usage.external), rss: mib(usage.rss) };
  } finally {
    socket.close();
  }
}

export function machine() {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'CPU'}, ${Math.round(os.totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version}`;
}

export function table(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Runs `body` with a PostgreSQL client connected to `url`, closed afterwards. */
export async function withPg(url, body) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/**
 * The planner's statistics of the freshly seeded database, as autovacuum gathers them on a
 * production server within a minute of such growth. Without them (autovacuum is off on some
 * machines, and a bench measures seconds after seeding) every estimate is a row or two and
 * PostgreSQL may join in any order: the Ring session lookup then walked every active member of
 * every Ring (in the fan-out's rotation, with 300 members, the share loads' session lookups and
 * key states took 47–130 ms each). BENCH_NO_ANALYZE=1 skips it (to see that case). Says whether
 * autovacuum is on.
 */
export function analyzeSeeded(url) {
  return withPg(url, async (client) => {
    const autovacuum = (await client.query('show autovacuum')).rows[0].autovacuum;
    if (process.env.BENCH_NO_ANALYZE === '1')
      return `autovacuum ${autovacuum}; not analyzed (BENCH_NO_ANALYZE=1)`;
    await client.query('analyze');
    return `autovacuum ${autovacuum}; analyzed after seeding`;
  });
}
