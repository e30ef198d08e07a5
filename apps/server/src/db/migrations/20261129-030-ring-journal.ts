import type { Kysely } from 'kysely';

/**
 * `ring_journal_events` (issue 25): what the server itself did to a Ring, for the customer's
 * « Journal du Ring » beside the signed membership log — invitations created, accepted and
 * removed, members deactivated or reactivated in the customer space, settings changed. The
 * username is copied so an entry stays readable after its invitation is deleted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ring_journal_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('member_id', 'text')
    .addColumn('member_username', 'text')
    .addColumn('details', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ring_journal_events_ring_time')
    .on('ring_journal_events')
    .columns(['ring_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ring_journal_events').execute();
}
