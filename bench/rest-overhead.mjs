// REST overhead: SecureRing against a minimal peer (bench/rest-peer.mjs: Fastify + better-sqlite3,
// no auth, logging, headers or compression) running the same query on the same SQLite file, in the
// same run, for the public plans read and the history read (`messages/get.php`, 50 messages of a
// Ring). Requests carry a browser's Accept-Encoding. Rounds alternate server and peer; medians.
// Usage: node scripts/build.mjs && node bench/rest-overhead.mjs
//   BENCH_REQUESTS (4000), BENCH_CONCURRENCY (50), BENCH_ROUNDS (3), BENCH_ONLY (plans | get),
//   BENCH_CPU_PROF=dir (writes a CPU profile of the server there),
//   BENCH_ACCEPT_ENCODING (a browser's "gzip, deflate, br"): e.g. "identity" to measure the
//   server without compressing its answers, a diagnostic (the budget is judged on a browser's),
//   BENCH_CANDIDATE=path of another build's main.js (a copy of apps/server/dist kept inside the
//   repository, e.g. apps/server/dist-candidate, so that its packages resolve): that build runs
//   too, on a copy of the same data, its rounds alternating with the server's and the peer's, and
//   each round's figures are printed side by side. This machine's speed drifts by up to a factor
//   of two within minutes, so two builds are compared round by round, never run against run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { BENCH_ADMIN, ROOT, cpuSeconds, machine, percentile, startServer, table } from './support.mjs';
import { loadE2ee } from '../scripts/lib/workspace-bundle.mjs';
import { RingMember, apiOk, mapLimit, ringWithSenders } from '../scripts/lib/ring-driver.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Sent by two members (each may send 120 a minute). */
const MESSAGES = 200;
const HISTORY_LIMIT = 50;
const BUDGET = { ratio: 0.7, p99Ms: 50 };
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br';
const ACCEPT_ENCODING = process.env.BENCH_ACCEPT_ENCODING ?? BROWSER_ACCEPT_ENCODING;

/**
 * Keep-alive HTTP/1.1 GETs with at most `concurrency` in flight; a non-200 aborts the run. `pid`:
 * the answering process, whose CPU time (user + system) per request is reported too: unlike
 * requests per second, it does not depend on what else the machine's two cores are doing.
 */
async function load(url, headers, count, concurrency, pid) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const latencies = [];
  let next = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = http.get(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, agent, headers },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`${url} → ${res.statusCode}`));
            else resolve(performance.now() - t0);
          });
        },
      );
      req.on('error', reject);
    });
  const started = performance.now();
  const cpuBefore = cpuSeconds(pid);
  const loopBefore = cpuSeconds(pid, { mainThread: true });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        latencies.push(await one());
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuUs = ((cpuSeconds(pid) - cpuBefore) * 1e6) / count;
  const loopUs = ((cpuSeconds(pid, { mainThread: true }) - loopBefore) * 1e6) / count;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rps: count / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuUs,
    loopUs,
  };
}

/** With BENCH_CPU_PROF=dir, each side writes a CPU profile there (named after it). */
function profileArgs(side) {
  const dir = process.env.BENCH_CPU_PROF;
  return dir
    ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${side}.${Date.now()}.cpuprofile`]
    : [];
}

async function startPeer(sqliteFile, ringId) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [...profileArgs('peer'), path.join(ROOT, 'bench/rest-peer.mjs')], {
    env: { ...process.env, PEER_PORT: String(port), PEER_SQLITE: sqliteFile, PEER_RING_ID: ringId },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`peer exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const CANDIDATE = process.env.BENCH_CANDIDATE ? path.resolve(process.env.BENCH_CANDIDATE) : undefined;
const e2ee = await loadE2ee();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-rest-'));
const candidateDir = `${dataDir}-candidate`;
const server = await startServer({ dataDir, execArgv: profileArgs('server') });
let peer;
let candidate;
try {
  const { ringId, owner, senders } = await ringWithSenders(server.url, e2ee, {
    admin: BENCH_ADMIN,
    members: 1,
    senders: 2,
  });
  const texts = Array.from(
    { length: MESSAGES },
    (_, i) => `Message ${i} : ${'texte de la conversation '.repeat(4)}`,
  );
  await mapLimit(texts, 4, async (text, i) => {
    const sender = senders[i % senders.length];
    return apiOk(server.url, 'POST', '/api/messages/send.php', {
      token: sender.token,
      body: RingMember.sendBody(await sender.encrypt(text)),
    });
  });
  peer = await startPeer(path.join(dataDir, 'securering.sqlite'), ringId);
  if (CANDIDATE) {
    // SQLite serves one instance per file: the candidate gets a copy of the data (same Ring,
    // members, messages and sessions), without the server's instance lock and without the shared
    // memory index of its write-ahead log (SQLite rebuilds it from the log when it opens the copy).
    fs.cpSync(dataDir, candidateDir, {
      recursive: true,
      filter: (from) => !from.endsWith('.lock') && !from.endsWith('-shm'),
    });
    candidate = await startServer({ dataDir: candidateDir, main: CANDIDATE });
  }

  const browser = { 'accept-encoding': ACCEPT_ENCODING, accept: 'application/json' };
  const historyPath = `/api/messages/get.php?conversation_id=room%3Ageneral&limit=${HISTORY_LIMIT}`;
  const scenarios = [
    { name: 'GET /api/subscriptions/plans.php', path: '/api/subscriptions/plans.php', headers: browser },
    {
      name: `GET /api/messages/get.php (${HISTORY_LIMIT} messages)`,
      path: historyPath,
      headers: { ...browser, authorization: `Bearer ${owner.token}` },
    },
  ];
  const rows = [];
  const verdicts = [];
  const candidateRounds = [];
  const only = process.env.BENCH_ONLY; // 'plans' or 'get' to run one scenario (profiling)
  for (const s of scenarios.filter((x) => !only || x.path.includes(only))) {
    const sample = await fetch(`${server.url}${s.path}`, { headers: s.headers });
    const bytes = (await sample.arrayBuffer()).byteLength;
    const runs = { server: [], candidate: [], peer: [] };
    const sides = [['server', server], ...(candidate ? [['candidate', candidate]] : []), ['peer', peer]];
    for (const [, side] of sides) await load(`${side.url}${s.path}`, s.headers, 500, CONCURRENCY, side.pid); // warm-up
    for (let round = 0; round < ROUNDS; round++)
      for (const [who, side] of sides)
        runs[who].push(await load(`${side.url}${s.path}`, s.headers, REQUESTS, CONCURRENCY, side.pid));
    const pick = (who, key) => median(runs[who].map((r) => r[key]));
    /** Requests per second of one side against the peer's (medians). */
    const vsPeer = (who) => pick(who, 'rps') / pick('peer', 'rps');
    const ratio = vsPeer('server');
    const ok = ratio >= BUDGET.ratio && pick('server', 'p99') <= BUDGET.p99Ms;
    verdicts.push(ok);
    if (candidate) candidateRounds.push([s.name, runs]);
    for (const who of sides.map(([name]) => name))
      rows.push([
        s.name,
        { server: 'SecureRing', candidate: 'SecureRing (candidate)', peer: 'peer' }[who],
        String(bytes),
        pick(who, 'rps').toFixed(0),
        pick(who, 'p50').toFixed(1),
        pick(who, 'p99').toFixed(1),
        pick(who, 'cpuUs').toFixed(0),
        pick(who, 'loopUs').toFixed(0),
        who === 'server'
          ? `${(ratio * 100).toFixed(0)} % ${ok ? '✓' : '✗'}`
          : who === 'candidate'
            ? `${(vsPeer('candidate') * 100).toFixed(0)} %`
            : '',
      ]);
  }
  console.log(`# REST overhead — ${machine()}\n`);
  console.log(
    `${REQUESTS} requests × ${ROUNDS} rounds per side, ${CONCURRENCY} concurrent keep-alive clients, medians; ` +
      `budget ≥ ${BUDGET.ratio * 100} % of the peer's req/s and p99 ≤ ${BUDGET.p99Ms} ms.\n`,
  );
  if (ACCEPT_ENCODING !== BROWSER_ACCEPT_ENCODING)
    console.log(
      `**Diagnostic run**: requests sent with \`Accept-Encoding: ${ACCEPT_ENCODING}\` instead of a ` +
        `browser's (${BROWSER_ACCEPT_ENCODING}); the budget is judged on a browser's.\n`,
    );
  console.log(
    table(
      [
        'Call',
        'Server',
        'Bytes (server answer)',
        'Req/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/req',
        'Event loop µs/req',
        'vs peer',
      ],
      rows,
    ),
  );
  for (const [name, runs] of candidateRounds) {
    console.log(`\n${name}, round by round (the candidate: ${path.relative(ROOT, CANDIDATE)}):\n`);
    console.log(
      table(
        [
          'Round',
          'Req/s vs peer, server / candidate',
          'p99 ms, server / candidate / peer',
          'Event loop µs/req, server / candidate / peer',
        ],
        runs.server.map((own, i) => {
          const [other, base] = [runs.candidate[i], runs.peer[i]];
          const pct = (r) => `${((r.rps / base.rps) * 100).toFixed(0)} %`;
          return [
            String(i + 1),
            `${pct(own)} / ${pct(other)}`,
            [own, other, base].map((r) => r.p99.toFixed(1)).join(' / '),
            [own, other, base].map((r) => r.loopUs.toFixed(0)).join(' / '),
          ];
        }),
      ),
    );
  }
  if (verdicts.includes(false)) process.exitCode = 1;
} finally {
  await peer?.stop();
  await candidate?.stop();
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(candidateDir, { recursive: true, force: true });
}
