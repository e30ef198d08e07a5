import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate';
import { migrations } from '../../src/db/migrations';
import { createTestDatabase, type TestDatabase } from '../test-database';

describe('migrations', () => {
  const opened: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of opened) {
      await database.handle.close();
      await database.drop();
    }
  });

  // On PostgreSQL each database is a schema of the same server: the migrator must keep to its own
  // (it used to see another schema's kysely_migration_lock and skip creating its own).
  it('migrates two databases side by side, each to the latest version', async () => {
    opened.push(await createTestDatabase());
    opened.push(await createTestDatabase());
    for (const { handle } of opened) {
      expect((await migrateToLatest(handle.db)).results).toEqual([]);
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        handle.db,
      );
      expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrations).sort());
      // The latest migration's columns are there.
      await handle.db.selectFrom('sessions').select(['parent_session_id', 'used_at']).limit(1).execute();
    }
  });
});
