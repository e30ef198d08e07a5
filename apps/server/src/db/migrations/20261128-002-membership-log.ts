import type { Kysely } from 'kysely';

/**
 * The signed membership log of each Ring (issue 24). `ring_membership_links` keeps every link as
 * its author signed it (the server verified it before storing it; browsers verify it again). The
 * columns below mirror what the verified log says, so the key rules can be applied in SQL:
 * - `ring_members.admitted_seq`: the genesis or admission link of the member (null: not admitted,
 *   it waits for a member to admit it and receives no Ring key);
 * - `ring_members.log_x25519` / `log_ed25519`: the member's keys per the log (epoch keys go only to
 *   members whose published keys are these);
 * - `ring_members.refused_at`: a newcomer refused in the room (it cannot sign in again);
 * - `rings.log_head_seq` / `log_head_hash`: the log's head (-1 and "" before the genesis), the
 *   compare-and-set point of an append; `rings.log_level`: the level the owner signed;
 * - `ring_epochs.log_seq`: the log head when the epoch was created (null before the log).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ring_membership_links')
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('author_member_id', 'text', (c) => c.notNull())
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ring_membership_links_pk', ['ring_id', 'seq'])
    .execute();
  await db.schema.alterTable('ring_members').addColumn('admitted_seq', 'integer').execute();
  await db.schema.alterTable('ring_members').addColumn('log_x25519', 'text').execute();
  await db.schema.alterTable('ring_members').addColumn('log_ed25519', 'text').execute();
  await db.schema.alterTable('ring_members').addColumn('refused_at', 'text').execute();
  await db.schema
    .alterTable('rings')
    .addColumn('log_head_seq', 'integer', (c) => c.notNull().defaultTo(-1))
    .execute();
  await db.schema
    .alterTable('rings')
    .addColumn('log_head_hash', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('rings').addColumn('log_level', 'text').execute();
  await db.schema.alterTable('ring_epochs').addColumn('log_seq', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ring_epochs').dropColumn('log_seq').execute();
  for (const column of ['log_level', 'log_head_hash', 'log_head_seq'])
    await db.schema.alterTable('rings').dropColumn(column).execute();
  for (const column of ['refused_at', 'log_ed25519', 'log_x25519', 'admitted_seq'])
    await db.schema.alterTable('ring_members').dropColumn(column).execute();
  await db.schema.dropTable('ring_membership_links').execute();
}
