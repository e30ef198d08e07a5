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

/**
 * A query of one fixed shape, built and compiled once per database and then run with each call's
 * arguments bound in place. For the hottest queries (a Ring request's session and membership
 * checks, the socket handshake, the history page): building and compiling Kysely's query tree costs
 * more than SQLite answering these queries, and PostgreSQL runs them as named prepared statements
 * (db/prepared-statements.ts: planned once per connection instead of on every run). `build` must
 * use every argument as a value only (a bound parameter), never to choose the query's shape or an
 * identifier; compiling checks that each argument is bound and none reaches the SQL text, and
 * throws otherwise.
 */
export function precompiledQuery<Args extends readonly unknown[], Row>(
  build: (db: Database, ...args: Args) => Compilable<Row>,
): (db: Database, ...args: Args) => Promise<Row[]> {
  const arity = build.length - 1;
  const byDatabase = new WeakMap<Database, Compiled<Row>>();
  return async (db, ...args) => {
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
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}
