import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database';
import { precompiledQuery } from '../../src/db/precompiled-query';
import { createTestDatabase, TEST_DB_KIND, type TestDatabase } from '../test-database';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = testDb.handle.db;
  await db
    .insertInto('settings')
    .values(
      ['a', 'b', 'c', 'd'].map((key, i) => ({
        category: 'probe',
        key,
        setting_value: String(i),
        updated_at: `2026-11-0${i + 1}T00:00:00.000Z`,
      })),
    )
    .execute();
});

afterAll(async () => {
  await testDb.handle.close();
  await testDb.drop();
});

const settingsOfCategoryAfter = precompiledQuery(
  (database: Database, category: string, after: string, limit: number) =>
    database
      .selectFrom('settings')
      .select(['key', 'setting_value'])
      .where('category', '=', category)
      .where('updated_at', '>', after)
      .where('key', '!=', 'zzz')
      .orderBy('key')
      .limit(limit),
);

describe('precompiledQuery', () => {
  it('binds each call’s arguments where the builder used them, constants kept', async () => {
    expect(await settingsOfCategoryAfter(db, 'probe', '2026-11-02T00:00:00.000Z', 10)).toEqual([
      { key: 'c', setting_value: '2' },
      { key: 'd', setting_value: '3' },
    ]);
    // Same compiled query, other arguments: nothing of the first call remains.
    expect(await settingsOfCategoryAfter(db, 'probe', '2026-10-01T00:00:00.000Z', 1)).toEqual([
      { key: 'a', setting_value: '0' },
    ]);
    expect(await settingsOfCategoryAfter(db, 'other', '2026-10-01T00:00:00.000Z', 10)).toEqual([]);
  });

  it('gives the same rows as the same query built each time', async () => {
    const built = await db
      .selectFrom('settings')
      .select(['key', 'setting_value'])
      .where('category', '=', 'probe')
      .where('updated_at', '>', '2026-11-01T00:00:00.000Z')
      .where('key', '!=', 'zzz')
      .orderBy('key')
      .limit(3)
      .execute();
    expect(await settingsOfCategoryAfter(db, 'probe', '2026-11-01T00:00:00.000Z', 3)).toEqual(built);
  });

  it('refuses a builder that uses an argument for the shape of the query rather than as a value', async () => {
    const shapeFromArgument = precompiledQuery((database: Database, column: string) =>
      database.selectFrom('settings').select(column as 'key'),
    );
    await expect(shapeFromArgument(db, 'key')).rejects.toThrow(/argument 0 must be used as a bound value/);
    const unusedArgument = precompiledQuery((database: Database, _category: string) =>
      database.selectFrom('settings').select('key'),
    );
    await expect(unusedArgument(db, 'probe')).rejects.toThrow(/argument 0/);
  });
});

describe('precompiledQuery inside a transaction (bind)', () => {
  const setProbeValue = precompiledQuery((database: Database, key: string, value: string) =>
    database
      .updateTable('settings')
      .set({ setting_value: value })
      .where('category', '=', 'probe')
      .where('key', '=', key),
  );
  const probeValue = precompiledQuery((database: Database, key: string) =>
    database
      .selectFrom('settings')
      .select('setting_value')
      .where('category', '=', 'probe')
      .where('key', '=', key),
  );

  it('runs on the transaction: its reads see the transaction’s writes, which roll back with it', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        const updated = await trx.executeQuery(setProbeValue.bind(db, 'a', 'changed'));
        expect(Number(updated.numAffectedRows)).toBe(1);
        // Another connection (PostgreSQL) would not see the uncommitted value.
        expect((await trx.executeQuery(probeValue.bind(db, 'a'))).rows).toEqual([
          { setting_value: 'changed' },
        ]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await probeValue(db, 'a')).toEqual([{ setting_value: '0' }]);
  });

  it('commits with it, compiled once for the database whatever the transaction', async () => {
    let builds = 0;
    const setProbeValueCounted = precompiledQuery((database: Database, key: string, value: string) => {
      builds += 1;
      return database
        .updateTable('settings')
        .set({ setting_value: value })
        .where('category', '=', 'probe')
        .where('key', '=', key);
    });
    for (const value of ['x', 'y', 'z'])
      await db.transaction().execute(async (trx) => {
        await trx.executeQuery(setProbeValueCounted.bind(db, 'b', value));
      });
    expect(await probeValue(db, 'b')).toEqual([{ setting_value: 'z' }]);
    await setProbeValueCounted(db, 'b', '1');
    expect(await probeValue(db, 'b')).toEqual([{ setting_value: '1' }]);
    expect(builds).toBe(1);
  });
});

describe.runIf(TEST_DB_KIND === 'postgres')('precompiledQuery on PostgreSQL', () => {
  /** The texts prepared on the connection `run` is given (pg_prepared_statements is per connection). */
  async function preparedAfter(run: (connection: Database) => Promise<unknown>): Promise<string[]> {
    return db.connection().execute(async (connection) => {
      await run(connection);
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
        connection,
      );
      return rows.map((row) => row.statement);
    });
  }

  it('runs as a named prepared statement, planned once per connection; other queries do not', async () => {
    const prepared = await preparedAfter(async (connection) => {
      for (let i = 0; i < 7; i++)
        expect(await settingsOfCategoryAfter(connection, 'probe', '2026-11-03T00:00:00.000Z', 5)).toEqual([
          { key: 'd', setting_value: '3' },
        ]);
      await connection.selectFrom('settings').select('key').where('category', '=', 'probe').execute();
    });
    expect(prepared.filter((text) => text.includes('"updated_at" >'))).toHaveLength(1);
    expect(prepared.some((text) => /select "key" from "settings" where "category" = \$1$/.test(text))).toBe(
      false,
    );
  });

  it('runs unnamed from then on when a migration changed the columns of a prepared select *', async () => {
    await sql`create table prepared_probe (id integer primary key)`.execute(db);
    try {
      await sql`insert into prepared_probe (id) values (1)`.execute(db);
      const probeById = precompiledQuery((database: Database, id: number) =>
        database
          .selectFrom('prepared_probe' as 'settings')
          .selectAll()
          .where('id' as 'key', '=', id as unknown as string),
      );
      await db.connection().execute(async (connection) => {
        expect(await probeById(connection, 1)).toEqual([{ id: 1 }]);
        await sql`alter table prepared_probe add column label text default 'x'`.execute(connection);
        expect(await probeById(connection, 1)).toEqual([{ id: 1, label: 'x' }]);
        expect(await probeById(connection, 1)).toEqual([{ id: 1, label: 'x' }]);
      });
    } finally {
      await sql`drop table prepared_probe`.execute(db);
    }
  });
});
