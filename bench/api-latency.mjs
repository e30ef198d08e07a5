// API latency and throughput of the calls every visitor, customer and admin makes, against the
// built server on SQLite (and PostgreSQL when BENCH_DATABASE_URL is set).
// Usage: npm run build && node bench/api-latency.mjs   (BENCH_REQUESTS, BENCH_CONCURRENCY)
import {
  adminToken,
  databaseKinds,
  json,
  machine,
  measure,
  startServer,
  table,
  withDatabase,
} from './support.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
// Password checks are argon2id by design (~tens of ms of CPU each): fewer, with less concurrency.
const LOGIN_REQUESTS = Math.max(20, Math.round(REQUESTS / 20));
const LOGIN_CONCURRENCY = 4;
const CUSTOMER = { email: 'bench@example.com', password: 'Bench-Customer-1' };

async function prepare(url) {
  const admin = await adminToken(url);
  const created = await json(`${url}/api/admin/customers.php`, {
    method: 'POST',
    token: admin,
    body: { first_name: 'Banc', last_name: 'Essai', ...CUSTOMER, email_verified: true },
  });
  const plans = await json(`${url}/api/subscriptions/plans.php`);
  const today = new Date().toISOString().slice(0, 10);
  const nextYear = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
  await json(`${url}/api/admin/customers/${created.data.id}/create-subscription`, {
    method: 'POST',
    token: admin,
    body: { plan_id: plans.data[0].id, billing_cycle: 'yearly', starts_at: today, expires_at: nextYear },
  });
  const customer = (await json(`${url}/api/auth/customer-login.php`, { method: 'POST', body: CUSTOMER }))
    .token;
  return { admin, customer };
}

function scenarios(url, tokens) {
  const get = (path, token) => () =>
    fetch(`${url}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  return [
    { name: 'GET /healthz', send: get('/healthz') },
    { name: 'GET /api/settings.php (public settings)', send: get('/api/settings.php') },
    { name: 'GET /api/subscriptions/plans.php', send: get('/api/subscriptions/plans.php') },
    {
      name: 'GET /api/customer/dashboard-data.php',
      send: get('/api/customer/dashboard-data.php', tokens.customer),
    },
    { name: 'GET /api/admin/stats.php (dashboard figures)', send: get('/api/admin/stats.php', tokens.admin) },
    {
      name: 'GET /api/admin/logs.php (page of 50)',
      send: get('/api/admin/logs.php?limit=50&offset=0', tokens.admin),
    },
    {
      name: 'POST /api/auth/customer-login.php (argon2id)',
      requests: LOGIN_REQUESTS,
      concurrency: LOGIN_CONCURRENCY,
      send: () =>
        fetch(`${url}/api/auth/customer-login.php`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(CUSTOMER),
        }),
    },
  ];
}

const fmt = (n) => n.toFixed(1);
console.log(`# API latency — ${machine()}\n`);
for (const kind of databaseKinds()) {
  await withDatabase(kind, process.env.BENCH_DATABASE_URL, async ({ dataDir, databaseUrl }) => {
    const server = await startServer({ dataDir, databaseUrl });
    try {
      const tokens = await prepare(server.url);
      const rows = [];
      for (const s of scenarios(server.url, tokens)) {
        const count = s.requests ?? REQUESTS;
        const concurrency = s.concurrency ?? CONCURRENCY;
        await measure(Math.min(100, count), concurrency, s.send); // warm-up
        const r = await measure(count, concurrency, s.send);
        rows.push([
          s.name,
          String(r.count),
          String(r.concurrency),
          r.rps.toFixed(0),
          fmt(r.p50),
          fmt(r.p95),
          fmt(r.p99),
        ]);
      }
      console.log(`## ${kind === 'postgres' ? 'PostgreSQL' : 'SQLite'}\n`);
      console.log(table(['Call', 'Requests', 'Concurrency', 'Req/s', 'p50 ms', 'p95 ms', 'p99 ms'], rows));
      console.log();
    } finally {
      await server.stop();
    }
  });
}
