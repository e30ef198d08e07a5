import { Migrator, type MigrationResultSet } from 'kysely';
import type { Database } from './database';
import { migrations } from './migrations';

/** Applies every pending migration; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Database): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? '?'} failed: ${reason}`);
  }
  return result;
}
