import type { Kysely } from 'kysely';

/**
 * A Ring's key revision: a counter raised with every change its members' key states depend on
 * (epochs, shares, members' published keys, members deactivated or back, the level and the history
 * setting). A page that reconnects compares it with the revision of its last key-state read and
 * reads the state again only when it moved.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('rings')
    .addColumn('key_revision', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('rings').dropColumn('key_revision').execute();
}
