import { sql, type Kysely } from 'kysely';

/**
 * Two index writes less for every message stored (issue 30: a send's commit writes the message and
 * each of its indexes):
 * - `messages_conversation_idx` (conversation_id, created_at) serves no query: pages, catch-up and
 *   the last activity read a conversation by `seq` (`messages_conversation_seq_unique`, whose
 *   prefix also serves any lookup by conversation alone);
 * - `messages_expires_idx` covered every message; only ephemeral ones have an `expires_at`, and the
 *   purge asks `expires_at <= now`, which implies the partial index's condition (SQLite and
 *   PostgreSQL both use it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_conversation_idx').execute();
  await db.schema.dropIndex('messages_expires_idx').execute();
  await db.schema
    .createIndex('messages_expires_idx')
    .on('messages')
    .column('expires_at')
    .where(sql.ref('expires_at'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_expires_idx').execute();
  await db.schema.createIndex('messages_expires_idx').on('messages').column('expires_at').execute();
  await db.schema
    .createIndex('messages_conversation_idx')
    .on('messages')
    .columns(['conversation_id', 'created_at'])
    .execute();
}
