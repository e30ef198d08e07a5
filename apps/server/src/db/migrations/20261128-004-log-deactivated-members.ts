import type { Kysely } from 'kysely';

/**
 * `ring_members.log_deactivated`: 1 when the Ring's membership log deactivated the member (issue
 * 24). The customer space may reactivate the account (`status`), but the member receives no Ring
 * key — it is not "keyed" — until the owner or a Ring admin signs its reactivation in the room.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('ring_members')
    .addColumn('log_deactivated', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ring_members').dropColumn('log_deactivated').execute();
}
