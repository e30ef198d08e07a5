import type { Kysely } from 'kysely';

/**
 * `sessions.closing_expires_at` (issue 25): when the last Ring tab of a browser closes, the Ring
 * session's expiry is brought down to a short grace and its former expiry kept here; a request of
 * the same session within the grace (a reload) puts it back.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('closing_expires_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('closing_expires_at').execute();
}
