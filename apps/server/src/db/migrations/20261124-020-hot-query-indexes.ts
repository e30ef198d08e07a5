import type { Kysely } from 'kysely';

/**
 * Indexes for queries that run on every request or job tick (test: hot-query-indexes.test.ts).
 * - The current subscription of a Ring's owner is read on every Ring request: by customer, status
 *   and expiry, in expiry order. With only (customer_id, status) and (status, expires_at), SQLite
 *   chose the second for its order and walked every active subscription of every customer.
 * - The session purge deletes expired or revoked sessions: revoked_at had no index, so each run
 *   read the whole table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('subscriptions_current_idx')
    .on('subscriptions')
    .columns(['customer_id', 'status', 'expires_at'])
    .execute();
  // Its first two columns did this one's work.
  await db.schema.dropIndex('subscriptions_customer_idx').execute();
  await db.schema.createIndex('sessions_revoked_idx').on('sessions').column('revoked_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sessions_revoked_idx').execute();
  await db.schema
    .createIndex('subscriptions_customer_idx')
    .on('subscriptions')
    .columns(['customer_id', 'status'])
    .execute();
  await db.schema.dropIndex('subscriptions_current_idx').execute();
}
