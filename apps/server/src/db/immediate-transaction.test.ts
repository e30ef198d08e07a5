import { CompiledQuery, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from './database';

describe('SQLite’s immediateTransaction', () => {
  let handle: DatabaseHandle;
  /** Each statement's outcome as the metrics' observer sees it (true: failed). */
  const reported: boolean[] = [];
  const logged: string[] = [];

  beforeEach(async () => {
    reported.length = 0;
    logged.length = 0;
    handle = openDatabase({ sqlitePath: ':memory:', onQuery: (query) => logged.push(query.sql) });
    handle.observeQueries((_ms, failed) => reported.push(failed));
    await sql`create table counters (id text primary key, value integer not null)`.execute(handle.db);
    await sql`insert into counters values ('a', 0), ('b', 0)`.execute(handle.db);
    reported.length = 0;
    logged.length = 0;
  });
  afterEach(() => handle.close());

  const bump = (id: string) =>
    CompiledQuery.raw('update counters set value = value + 1 where id = ? returning value', [id]);
  const values = async () =>
    Object.fromEntries(
      (await sql<{ id: string; value: number }>`select id, value from counters`.execute(handle.db)).rows.map(
        (row) => [row.id, row.value],
      ),
    );

  it('runs its statements now, together, and reports each as Kysely reports its queries', async () => {
    const answer = handle.immediateTransaction!((queries) => {
      const [a] = queries.all<{ value: number }>(bump('a'));
      const changed = queries.run(CompiledQuery.raw('update counters set value = 7 where id = ?', ['b']));
      return { a: a!.value, changed };
    });
    expect(answer).toEqual({ value: { a: 1, changed: 1 } });
    expect(await values()).toEqual({ a: 1, b: 7 });
    expect(reported.slice(0, 2)).toEqual([false, false]);
    expect(logged.slice(0, 2)).toEqual([bump('a').sql, 'update counters set value = 7 where id = ?']);
  });

  it('undoes every statement of a work that throws, and throws its error again', async () => {
    expect(() =>
      handle.immediateTransaction!((queries) => {
        queries.all(bump('a'));
        queries.run(CompiledQuery.raw("insert into counters values ('b', 1)")); // b exists
      }),
    ).toThrow(/UNIQUE constraint failed/);
    expect(reported.slice(0, 2)).toEqual([false, true]);
    expect(await values()).toEqual({ a: 0, b: 0 });
  });

  it('runs nothing while a Kysely transaction is open on the connection, and runs once it ended', async () => {
    let during: unknown = 'not asked';
    await handle.db.transaction().execute(async (trx) => {
      await sql`update counters set value = 5 where id = 'b'`.execute(trx);
      during = handle.immediateTransaction!((queries) => queries.all(bump('a')));
    });
    expect(during).toBeUndefined();
    expect(await values()).toEqual({ a: 0, b: 5 });
    expect(handle.immediateTransaction!((queries) => queries.all(bump('a')))).toEqual({
      value: [{ value: 1 }],
    });
  });
});
