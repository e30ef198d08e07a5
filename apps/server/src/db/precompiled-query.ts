import type { Compilable, CompiledQuery } from 'kysely';
import type { Database } from './database';
import { prepareStatement } from './prepared-statements';

/** Stands for the argument of this index while the query is compiled. */
const markerOf = (index: number): string => `\u0000precompiled-argument-${index}\u0000`;

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** For each parameter, the index of the argument bound there; undefined: a constant of the query. */
  slots: ReadonlyArray<number | undefined>;
}

function compile<Args extends readonly unknown[], Row>(
  db: Database,
  build: (db: Database, ...args: Args) => Compilable<Row>,
  arity: number,
): Compiled<Row> {
  const markers = Array.from({ length: arity }, (_, i) => markerOf(i));
  const query = build(db, ...(markers as unknown as Args)).compile();
  const slots = query.parameters.map((value) => {
    const index = typeof value === 'string' ? markers.indexOf(value) : -1;
    return index === -1 ? undefined : index;
  });
  markers.forEach((marker, index) => {
    if (!slots.includes(index) || query.sql.includes(marker))
      throw new Error(`precompiledQuery: argument ${index} must be used as a bound value, once at least`);
  });
  prepareStatement(query.sql);
  return { query, slots };
}

/** A query of precompiledQuery: run it on a database, or bind it to run inside a transaction. */
export interface PrecompiledQuery<Args extends readonly unknown[], Row> {
  /** Runs the query on `db` (the root database or one of its connections) with `args` bound. */
  (db: Database, ...args: Args): Promise<Row[]>;
  /**
   * The query compiled for `db` (once) with `args` bound, for `trx.executeQuery` on a transaction
   * of `db`: a transaction is a new Kysely object each time, so running the query with it would
   * compile again on every transaction, while its SQL is the root database's (same dialect and
   * plugins). The result keeps `numAffectedRows`, which an update's compare-and-set reads.
   */
  bind(db: Database, ...args: Args): CompiledQuery<Row>;
}

/**
 * A query of one fixed shape, built and compiled once per database and then run with each call's
 * arguments bound in place. For the hottest queries (a Ring request's session and membership
 * checks, the socket handshake, the history page, a message's send): building and compiling
 * Kysely's query tree costs more than SQLite answering these queries, and PostgreSQL runs them as
 * named prepared statements (db/prepared-statements.ts: planned once per connection instead of on
 * every run). `build` must use every argument as a value only (a bound parameter), never to choose
 * the query's shape or an identifier; compiling checks that each argument is bound and none
 * reaches the SQL text, and throws otherwise. `arity`: how many arguments `build` takes, needed
 * when it takes a rest parameter (a row's values), which `build.length` does not count.
 */
export function precompiledQuery<Args extends readonly unknown[], Row>(
  build: (db: Database, ...args: Args) => Compilable<Row>,
  arity: number = build.length - 1,
): PrecompiledQuery<Args, Row> {
  const byDatabase = new WeakMap<Database, Compiled<Row>>();
  const bind = (db: Database, ...args: Args): CompiledQuery<Row> => {
    let compiled = byDatabase.get(db);
    if (!compiled) {
      compiled = compile(db, build, arity);
      byDatabase.set(db, compiled);
    }
    const { query, slots } = compiled;
    const parameters = query.parameters.map((value, i) => {
      const slot = slots[i];
      return slot === undefined ? value : args[slot];
    });
    return { ...query, parameters };
  };
  const run = async (db: Database, ...args: Args): Promise<Row[]> =>
    (await db.executeQuery<Row>(bind(db, ...args))).rows;
  return Object.assign(run, { bind });
}
