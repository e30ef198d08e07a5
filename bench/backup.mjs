// Time and size of a back-office backup and of its restore, for a database holding BENCH_ROWS
// extra rows (system log entries, the table that grows fastest in production), on SQLite and,
// with BENCH_DATABASE_URL, PostgreSQL. The row count is checked after the restore.
// Usage: npm run build && node bench/backup.mjs
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { adminToken, databaseKinds, json, machine, startServer, table, withDatabase } from './support.mjs';

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);

// Rows are written straight into the stopped server's database: going through the API would
// measure the API, not the backup.
async function seedRows(kind, dataDir, databaseUrl) {
  const select = `'bench-' || n, 'info', 'system', 'Entrée de banc d''essai n° ' || n,
    '{"n":' || n || ',"source":"bench"}', '127.0.0.1', '2026-11-01T00:00:00.000Z'`;
  const insert = `insert into system_logs (id, level, category, message, details, ip_address, created_at)`;
  if (kind === 'sqlite') {
    const db = new Database(path.join(dataDir, 'securering.sqlite'));
    db.exec(`with recursive s(n) as (select 1 union all select n + 1 from s where n < ${ROWS})
      ${insert} select ${select} from s`);
    db.close();
  } else {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`${insert} select ${select} from generate_series(1, ${ROWS}) as n`);
    await client.end();
  }
}

async function countRows(kind, dataDir, databaseUrl) {
  const query = `select count(*) as n from system_logs where id like 'bench-%'`;
  if (kind === 'sqlite') {
    const db = new Database(path.join(dataDir, 'securering.sqlite'), { readonly: true });
    const n = db.prepare(query).get().n;
    db.close();
    return Number(n);
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const n = (await client.query(query)).rows[0].n;
  await client.end();
  return Number(n);
}

async function timed(body) {
  const t0 = performance.now();
  const result = await body();
  return { result, seconds: (performance.now() - t0) / 1000 };
}

const rows = [];
for (const kind of databaseKinds()) {
  await withDatabase(kind, process.env.BENCH_DATABASE_URL, async ({ dataDir, databaseUrl }) => {
    // First start migrates and seeds; the rows go in while it is stopped.
    await (await startServer({ dataDir, databaseUrl })).stop();
    await seedRows(kind, dataDir, databaseUrl);
    let server = await startServer({ dataDir, databaseUrl });
    try {
      const token = await adminToken(server.url);
      const backup = `${server.url}/api/admin/backup.php`;
      const created = await timed(() => json(backup, { method: 'POST', token, body: { action: 'create' } }));
      const { filename, size } = created.result.backup;
      const restored = await timed(() =>
        json(backup, { method: 'POST', token, body: { action: 'restore', filename } }),
      );
      await server.stop();
      const after = await countRows(kind, dataDir, databaseUrl);
      if (after !== ROWS) throw new Error(`after restore: ${after} rows, expected ${ROWS}`);
      rows.push([
        kind === 'postgres' ? 'PostgreSQL' : 'SQLite',
        ROWS.toLocaleString('en-US'),
        created.seconds.toFixed(1),
        (size / 1024 ** 2).toFixed(1),
        restored.seconds.toFixed(1),
        'yes',
      ]);
    } finally {
      await server.stop();
    }
  });
}
console.log(`# Backup and restore — ${machine()}\n`);
console.log(table(['Database', 'Extra rows', 'Create s', 'Archive MiB', 'Restore s', 'All rows back'], rows));
