import { Migrator, PostgresAdapter, sql, type MigrationResultSet } from 'kysely';
import type { Database } from './database';
import { migrations } from './migrations';

/**
 * On PostgreSQL, the schema the migrator's own tables live in: the connection's current schema.
 * Without it Kysely looks for `kysely_migration_lock` in every schema of the database and, when
 * another schema has one (another deployment, a parallel test run), skips creating its own.
 */
async function migrationTableSchema(db: Database): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

async function migratorFor(db: Database): Promise<Migrator> {
  const schema = await migrationTableSchema(db);
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/** Applies every pending migration; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Database): Promise<MigrationResultSet> {
  return check(await (await migratorFor(db)).migrateToLatest());
}

/** Migrates up or down to `name` (tests: a database as an older version left it). */
export async function migrateTo(db: Database, name: string): Promise<MigrationResultSet> {
  return check(await (await migratorFor(db)).migrateTo(name));
}

function check(result: MigrationResultSet): MigrationResultSet {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? '?'} failed: ${reason}`);
  }
  return result;
}
