import type { Kysely } from 'kysely';

/**
 * Calls are also the live state of each call: busy checks, presence and the sweep look for the few
 * calls still ringing or under way among the whole history, by status.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('calls_status_idx').on('calls').columns(['status', 'started_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('calls_status_idx').execute();
}
