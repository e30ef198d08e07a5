import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  type CompiledQuery,
  SqliteDialect,
  sql,
  type KyselyConfig,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import type pg from 'pg';
import type { DB } from './schema';
import { PRIVATE_DIR_MODE } from '../lib/data-dir';
import { preparingPool } from './prepared-statements';
import { loadOnFirstUse } from '../lib/load-on-first-use';

export type Database = Kysely<DB>;
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Database;
  dialect: DialectName;
  /**
   * Verifies the database answers; used by /readyz. On PostgreSQL it runs on a connection of its
   * own, so it does not queue behind requests that hold the pool.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Sees each query's duration and outcome from now on (the instance's metrics), instead of the
   * observer before it, which the answer puts back.
   */
  observeQueries(observer: QueryObserver): () => void;
  /** The PostgreSQL pool's connections (SQLite has no pool). */
  poolUse?(): { total: number; idle: number; waiting: number };
  /**
   * SQLite only: runs `work` now, in one synchronous transaction on the connection (BEGIN, its
   * statements, COMMIT; a ROLLBACK when it throws, the error then thrown again), or answers
   * undefined without running it when a Kysely transaction is open on the connection (the caller
   * then waits for the connection, `db.connection().execute`, and asks again there). Kysely holds
   * its single connection across awaits; a synchronous block runs between two of them, never
   * inside a transaction (checked), so neither sees the other's half-done work. Each statement is
   * observed and logged as Kysely's are. For the hottest write (a message's send, issue 30):
   * Kysely's transaction takes five awaited statements, a transaction object and its connection
   * lock, which cost more than SQLite's own work.
   */
  immediateTransaction?<T>(work: (queries: SyncQueries) => T): { value: T } | undefined;
}

/** Statements run synchronously inside DatabaseHandle.immediateTransaction. */
export interface SyncQueries {
  /** The rows of a compiled query (a read, or a write with `returning`). */
  all<R>(query: CompiledQuery<R>): R[];
  /** Runs a compiled write; its number of changed rows. */
  run(query: CompiledQuery): number;
}

export type QueryObserver = (durationMs: number, failed: boolean) => void;

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent SQLite is used. */
  databaseUrl?: string | undefined;
  /** SQLite file path (or ':memory:'). */
  sqlitePath?: string;
  /** PostgreSQL schema to use (tests use one schema per test file). */
  pgSchema?: string;
  pgPoolSize?: number;
  /**
   * PostgreSQL: the longest a statement may run, cancelled by the server past it (0: no limit, for
   * migrations). Default {@link PG_STATEMENT_TIMEOUT_MS}.
   */
  pgStatementTimeoutMs?: number;
  /** PostgreSQL: the longest a request waits for a connection (new or from the pool). */
  pgConnectTimeoutMs?: number;
  /** Sees every query (tests check the plans of the queries a scenario runs). */
  onQuery?: (query: { sql: string; parameters: readonly unknown[] }) => void;
}

/** PostgreSQL's driver, loaded when a PostgreSQL database is opened (not on SQLite). */
const loadPg = loadOnFirstUse<typeof pg>('pg');

/** Opens SQLite (WAL, foreign keys, busy timeout) or a PostgreSQL pool behind one Kysely type. */
export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  if (!options.sqlitePath) throw new Error('sqlitePath is required when no databaseUrl is given');
  return openSqlite(options.sqlitePath, options);
}

function replaceObserver(slot: { current?: QueryObserver }, observer: QueryObserver): () => void {
  const previous = slot.current;
  slot.current = observer;
  return () => {
    slot.current = previous;
  };
}

/** Reports one query as Kysely's log does: to the metrics' observer, and to `onQuery` when it succeeded. */
function queryReporter(options: DatabaseOptions, observer: { current?: QueryObserver }) {
  const onQuery = options.onQuery;
  return (query: { sql: string; parameters: readonly unknown[] }, durationMs: number, failed: boolean) => {
    observer.current?.(durationMs, failed);
    if (onQuery && !failed) onQuery({ sql: query.sql, parameters: query.parameters });
  };
}

function logOption(options: DatabaseOptions, observer: { current?: QueryObserver }): KyselyConfig['log'] {
  const report = queryReporter(options, observer);
  return (event) => report(event.query, event.queryDurationMillis, event.level === 'error');
}

/**
 * Rows as objects, from the arrays of a statement in raw mode. better-sqlite3 builds each row
 * object in native code, one property at a time, which costs more than the query itself on wide
 * rows: a page of 50 messages took 145 µs as objects against 100 µs as arrays made objects here,
 * and a one-row read of 40 columns 9.8 µs against 7.1 µs. Same result: a column name met twice
 * keeps the last value, as better-sqlite3 does.
 */
export function objectRows(
  columns: readonly string[],
  rows: readonly unknown[][],
): Record<string, unknown>[] {
  const objects = new Array<Record<string, unknown>>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const object: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++) object[columns[c]!] = row[c];
    objects[r] = object;
  }
  return objects;
}

/** Kysely's transaction rollback (not a rollback to a savepoint). */
const isRollback = (text: string): boolean => /^\s*rollback\s*;?\s*$/i.test(text);

/** Distinct SQL texts whose prepared statements are kept (least recently used go first). */
export const SQLITE_STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 for Kysely, with its prepared statements kept by SQL text. Kysely's SQLite driver
 * prepares every query again (parsing and planning it each time: a third of a simple read's cost);
 * the same text now reuses its statement. Kysely runs one query at a time on its single SQLite
 * connection, so a statement is never used twice at once; streamed reads (`iterate`) still get a
 * statement of their own, as a reader may stop half-way. Reads run in raw mode and their rows are
 * made objects by objectRows (cheaper than better-sqlite3's own row objects).
 */
export function withStatementCache(
  sqlite: SqliteDatabase.Database,
  size = SQLITE_STATEMENT_CACHE_SIZE,
): KyselySqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): SqliteStatement {
      const cached = cache.get(text);
      if (cached) {
        // Most recently used last, so the first key is the one to drop.
        cache.delete(text);
        cache.set(text, cached);
        return cached;
      }
      const statement = sqlite.prepare(text);
      // A reader's rows come as arrays and are made objects here (see objectRows).
      const columns = statement.reader
        ? statement
            .raw(true)
            .columns()
            .map((column) => column.name)
        : [];
      const run = isRollback(text)
        ? (parameters: readonly unknown[]) =>
            // SQLite already rolled back (SQLITE_FULL, SQLITE_IOERR…): Kysely's rollback would fail
            // with "cannot rollback - no transaction is active" and replace the real error.
            sqlite.inTransaction ? statement.run(parameters) : { changes: 0, lastInsertRowid: 0 }
        : (parameters: readonly unknown[]) => statement.run(parameters);
      const entry: SqliteStatement = {
        reader: statement.reader,
        all: (parameters) => objectRows(columns, statement.all(parameters) as unknown[][]),
        run,
        iterate: (parameters) => sqlite.prepare(text).iterate(parameters) as IterableIterator<unknown>,
      };
      if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      cache.set(text, entry);
      return entry;
    },
  };
}

function openSqlite(file: string, options: DatabaseOptions = {}): DatabaseHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const queryObserver: { current?: QueryObserver } = {};
  const statements = withStatementCache(sqlite);
  const db = new Kysely<DB>({
    dialect: new SqliteDialect({ database: statements }),
    log: logOption(options, queryObserver),
  });
  const report = queryReporter(options, queryObserver);
  const timed = <T>(query: CompiledQuery, runQuery: (statement: SqliteStatement) => T): T => {
    const started = performance.now();
    try {
      const result = runQuery(statements.prepare(query.sql));
      report(query, performance.now() - started, false);
      return result;
    } catch (error) {
      report(query, performance.now() - started, true);
      throw error;
    }
  };
  const queries: SyncQueries = {
    all: <R>(query: CompiledQuery<R>) => timed(query, (statement) => statement.all(query.parameters) as R[]),
    run: (query) => timed(query, (statement) => Number(statement.run(query.parameters).changes)),
  };
  // better-sqlite3's transaction function: BEGIN, the work, COMMIT, or ROLLBACK and rethrow.
  const runTransaction = sqlite.transaction((work: (queries: SyncQueries) => unknown) => work(queries));
  return {
    db,
    dialect: 'sqlite',
    immediateTransaction<T>(work: (queries: SyncQueries) => T) {
      if (sqlite.inTransaction) return undefined;
      return { value: runTransaction(work) as T };
    },
    observeQueries: (observer) => replaceObserver(queryObserver, observer),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

/** How long the readiness probe waits for its connection, then for its answer (PostgreSQL). */
export const PROBE_TIMEOUT_MS = 2000;
/** `application_name` of the readiness probe's connection (seen in pg_stat_activity). */
export const PROBE_APPLICATION_NAME = 'securering-readiness';

/**
 * Bounds on every PostgreSQL call (issue 26), so that a request answers within 5 s even while the
 * database is gone: a connection is waited for at most PG_CONNECT_TIMEOUT_MS (then the request
 * answers 503), a statement runs at most PG_STATEMENT_TIMEOUT_MS (cancelled by the server), and a
 * connection that stops answering altogether fails its query a second after that.
 */
export const PG_CONNECT_TIMEOUT_MS = 3000;
export const PG_STATEMENT_TIMEOUT_MS = 4000;

function openPostgres(connectionString: string, options: DatabaseOptions): DatabaseHandle {
  const pg = loadPg();
  // int8 (bigint, count(*)) comes back as a string by default; every value we store fits in 2^53.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
  const schema = options.pgSchema;
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name ${schema}`);
  const searchPath = schema ? { options: `-c search_path=${schema}` } : {};
  const statementTimeoutMs = options.pgStatementTimeoutMs ?? PG_STATEMENT_TIMEOUT_MS;
  const serverOptions = [
    ...(schema ? [`-c search_path=${schema}`] : []),
    ...(statementTimeoutMs > 0 ? [`-c statement_timeout=${statementTimeoutMs}`] : []),
  ];
  const poolSize = options.pgPoolSize ?? 10;
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    // A fixed-size pool (issue 30): a connection, once opened, stays open while idle (pg-pool
    // closes idle connections past `min`, after 10 s by default). Otherwise a quiet spell closes
    // them and the next burst (a key rotation's share loads, the first messages after a lull)
    // waits for new backends, each forked, authenticated and planning the hot statements again on
    // cold caches: 18–32 ms per statement at such moments, and 150–250 ms of delay for the
    // messages behind them in bench:fanout. Connections are still opened only when needed.
    min: poolSize,
    connectionTimeoutMillis: options.pgConnectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS,
    ...(statementTimeoutMs > 0 ? { query_timeout: statementTimeoutMs + 1000 } : {}),
    ...(serverOptions.length > 0 ? { options: serverOptions.join(' ') } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const queryObserver: { current?: QueryObserver } = {};
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: preparingPool(pool) }),
    log: logOption(options, queryObserver),
  });

  // The readiness probe's own connection, opened on the first ping. When every connection of the
  // request pool is taken (sends queued on a Ring's row locks, say), a ping there would wait its
  // turn and time out on every instance at once; here it waits only for PostgreSQL. A pool of one
  // rather than a bare client: a connection that fails or times out is dropped (pg-pool destroys a
  // client released with an error), and the next ping opens a new one.
  let probe: pg.Pool | undefined;
  let closed = false;
  const probePool = (): pg.Pool => {
    if (closed) throw new Error('database closed');
    if (!probe) {
      probe = new pg.Pool({
        connectionString,
        max: 1,
        connectionTimeoutMillis: PROBE_TIMEOUT_MS,
        query_timeout: PROBE_TIMEOUT_MS,
        application_name: PROBE_APPLICATION_NAME,
        ...searchPath,
      });
      probe.on('error', () => undefined);
    }
    return probe;
  };
  return {
    db,
    dialect: 'postgres',
    observeQueries: (observer) => replaceObserver(queryObserver, observer),
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async ping() {
      await probePool().query('select 1');
    },
    async close() {
      closed = true;
      const probeToEnd = probe;
      probe = undefined;
      await Promise.all([probeToEnd?.end(), db.destroy()]);
    },
  };
}

/** True when the error is a unique-constraint violation on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { code?: string; message?: string };
  return (
    e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
