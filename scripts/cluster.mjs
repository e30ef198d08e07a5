#!/usr/bin/env node
// `npm run cluster`: the production shape on one machine — N instances of the built server
// (default 3) against PostgreSQL (database `securering_cluster`, created if missing), Redis (key
// prefix `securering-cluster:`) and S3 storage (a local s3rver, or the bucket of S3_* variables),
// behind HAProxy on http://127.0.0.1:8080 (stats on :8081). Commands on stdin: status, kill <s1>
// (SIGKILL), stop <s1> (graceful SIGTERM), start <s1>, quit. See docs/OPERATIONS.md.
//
//   npm run cluster -- [--instances 3] [--port 8080] [--fresh]
//   CLUSTER_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL, ADMIN_PASSWORD
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { ROOT, startCluster } from './lib/cluster.mjs';

const { values } = parseArgs({
  options: {
    instances: { type: 'string', default: '3' },
    port: { type: 'string', default: '8080' },
    fresh: { type: 'boolean', default: false },
  },
});
const instances = Number(values.instances);
const port = Number(values.port);
if (!Number.isInteger(instances) || instances < 1 || instances > 16) throw new Error('--instances: 1 to 16');

const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

/** Warnings, errors and start-up lines; the request log stays in each instance. */
function show(name, line) {
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    if (line.trim()) console.log(`[${name}] ${line}`);
    return;
  }
  if (entry.level >= 40 || /prêt|arrêt/.test(String(entry.msg)))
    console.log(
      `[${name}] ${entry.level >= 50 ? 'ERREUR' : entry.level >= 40 ? 'alerte' : 'info'} ${entry.msg}`,
    );
}

// Each instance serves its Prometheus metrics with this token (`metrics` command below).
const metricsToken = process.env.METRICS_TOKEN || randomBytes(18).toString('base64url');

/** The figures an operator looks at first, read from one instance's /metrics. */
async function metricsSummary(instance) {
  const res = await fetch(`${instance.url}/metrics`, {
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  if (!res.ok) return `HTTP ${res.status}`;
  const text = await res.text();
  const sum = (name, filter = '') => {
    let total = 0;
    for (const line of text.split('\n'))
      if (
        line.startsWith(name) &&
        (line[name.length] === ' ' || line[name.length] === '{') &&
        line.includes(filter)
      )
        total += Number(line.slice(line.lastIndexOf(' ') + 1));
    return total;
  };
  const lagMs = (sum('securering_nodejs_eventloop_lag_p99_seconds') * 1000).toFixed(1);
  return [
    `sockets ${sum('securering_connected_sockets')}`,
    `Rings ${sum('securering_joined_rings')}`,
    `requêtes ${sum('securering_http_requests_total')} (5xx ${sum('securering_http_requests_total', 'status="5')})`,
    `livraisons ${sum('securering_socket_deliveries_total')}`,
    `erreurs Redis ${sum('securering_redis_adapter_errors_total')}`,
    `boucle p99 ${lagMs} ms`,
    `RSS ${Math.round(sum('securering_process_resident_memory_bytes') / 1024 / 1024)} Mio`,
  ].join(' · ');
}

async function showMetrics(only) {
  for (const instance of cluster.instances) {
    if (only && instance !== only) continue;
    const line = instance.running
      ? await metricsSummary(instance).catch((error) => error.message)
      : 'arrêtée';
    console.log(`  ${instance.name}  ${line}`);
  }
}

console.log(`Démarrage de ${instances} instances…`);
const cluster = await startCluster({
  instances,
  port,
  statsPort: port + 1,
  fresh: values.fresh,
  adminDatabaseUrl: process.env.CLUSTER_DATABASE_URL,
  redisUrl: process.env.REDIS_URL,
  admin: { username: process.env.ADMIN_USERNAME ?? 'admin', password: process.env.ADMIN_PASSWORD ?? '' },
  env: { METRICS_TOKEN: metricsToken, ...(process.env.ADMIN_PASSWORD ? {} : { ADMIN_PASSWORD: '' }) },
  log: show,
});

function status() {
  console.log(`\nSecureRing (grappe) : ${cluster.url}   statistiques HAProxy : ${cluster.statsUrl}`);
  console.log(
    `Base : ${cluster.databaseUrl.replace(/\/\/[^@]*@/, '//…@')}   Redis : préfixe ${cluster.redisPrefix}`,
  );
  for (const instance of cluster.instances)
    console.log(
      `  ${instance.name}  ${instance.url}  ${instance.running ? `pid ${instance.pid}` : 'arrêtée'}  DATA_DIR ${instance.dataDir}`,
    );
  console.log(`Métriques Prometheus : GET <instance>/metrics avec « Authorization: Bearer ${metricsToken} »`);
  console.log(
    'Commandes : status, metrics [s1], kill <s1> (SIGKILL), stop <s1> (SIGTERM), start <s1>, quit\n',
  );
}
status();

let quitting = false;
async function quit() {
  if (quitting) return;
  quitting = true;
  console.log('Arrêt de la grappe…');
  await cluster.stop();
  process.exit(0);
}
process.on('SIGINT', () => void quit());
process.on('SIGTERM', () => void quit());

const input = readline.createInterface({ input: process.stdin });
input.on('line', async (line) => {
  const [command, name] = line.trim().split(/\s+/);
  const instance = cluster.instances.find((i) => i.name === name);
  try {
    if (command === 'status') status();
    else if (command === 'quit') await quit();
    else if (command === 'metrics') await showMetrics(instance);
    else if (!instance) console.log('Instance inconnue (s1, s2…)');
    else if (command === 'kill') await instance.kill();
    else if (command === 'stop') await instance.stop();
    else if (command === 'start') await instance.start();
    else console.log('Commandes : status, metrics [s1], kill <s1>, stop <s1>, start <s1>, quit');
    if (['kill', 'stop', 'start'].includes(command))
      console.log(`${name} : ${instance.running ? 'en marche' : 'arrêtée'}`);
  } catch (error) {
    console.log(`Échec : ${error.message}`);
  }
});
input.on('close', () => {
  // stdin closed (run in the background): keep serving until a signal.
});
