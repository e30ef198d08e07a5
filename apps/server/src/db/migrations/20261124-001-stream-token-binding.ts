import type { Kysely } from 'kysely';

/**
 * Stream tokens become single use and bound to the Ring session that minted them:
 * `parent_session_id` (the minting Ring session; null for other audiences) and `used_at` (set once,
 * by the socket handshake that consumed the token).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('parent_session_id', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('used_at', 'text').execute();
  await db.schema.createIndex('sessions_parent_idx').on('sessions').column('parent_session_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sessions_parent_idx').execute();
  await db.schema.alterTable('sessions').dropColumn('used_at').execute();
  await db.schema.alterTable('sessions').dropColumn('parent_session_id').execute();
}
