import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/**
 * Named prepared statements for the hot queries on PostgreSQL. node-postgres sends every query
 * unnamed, so PostgreSQL parses and plans it on each run: for the Ring access check (sessions,
 * members, Rings, owners and subscriptions joined) planning took 1.4 ms against 0.2 ms to run it,
 * measured with pg_stat_statements during a restart storm. A named statement is parsed once per
 * connection and, after five runs, planned once (PostgreSQL's plan cache).
 *
 * Only registered texts are named: those of precompiledQuery, a fixed set of shapes. Naming every
 * query would keep a statement per distinct text on each connection, and texts with `in (…)` lists
 * of every length are without bound.
 */
const statementNames = new Map<string, string>();

/** Runs `sqlText` as a named prepared statement on PostgreSQL from now on. */
export function prepareStatement(sqlText: string): void {
  if (!statementNames.has(sqlText)) statementNames.set(sqlText, `securering_${statementNames.size + 1}`);
}

/**
 * PostgreSQL refuses to run a prepared `select *` whose table changed columns since it was
 * prepared (a migration run by another instance): SQLSTATE 0A000, "cached plan must not change
 * result type".
 */
function isStalePreparedStatement(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '0A000';
}

/** Kysely's pool for PostgreSQL, running registered texts as named prepared statements. */
export function preparingPool(pool: pg.Pool): PostgresPool {
  // Kysely keeps one connection object per client: give it the same wrapper each time.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    query: ((sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) => {
      const name = typeof sqlOrCursor === 'string' ? statementNames.get(sqlOrCursor) : undefined;
      if (name === undefined)
        return (client.query as (...args: unknown[]) => unknown)(sqlOrCursor, parameters && [...parameters]);
      const text = sqlOrCursor as string;
      const values = [...(parameters ?? [])];
      return client.query({ name, text, values }).catch((error: unknown) => {
        if (!isStalePreparedStatement(error)) throw error;
        // Run it unnamed from now on, on every connection; this run too.
        statementNames.delete(text);
        return client.query(text, values);
      }) as Promise<PostgresQueryResult<unknown>>;
    }) as PostgresPoolClient['query'],
    release: () => client.release(),
  });
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
        // pg-pool listens to a client's errors only while it is idle: a connection lost while a
        // request holds it (PostgreSQL stopped, a proxy cut) would otherwise be an uncaught
        // exception. Its queries are rejected anyway, and pg-pool drops it on release (issue 26).
        client.on('error', () => undefined);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
