import type { Kysely } from 'kysely';

/**
 * The Ring file space (issue 12).
 *
 * - `ring_files.file_key` / `key_epoch`: the file key wrapped under a Ring epoch key (opaque JSON
 *   from the browser) and that epoch.
 * - `ring_folders.created_by_member_id`: who created the folder (a member may rename or delete the
 *   folders it created; owner and Ring admins all of them). No foreign key: members are never
 *   deleted while they own content, and a Ring's deletion takes its folders with it.
 * - `ring_upload_reservations`: bytes set aside for uploads in progress (multipart or tus), counted
 *   with the stored files against the Ring's quota, so concurrent uploads cannot overshoot it
 *   together. A tus reservation also keeps the upload's checked metadata until it completes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s.alterTable('ring_files').addColumn('file_key', 'text').execute();
  await s.alterTable('ring_files').addColumn('key_epoch', 'integer').execute();
  await s.alterTable('ring_folders').addColumn('created_by_member_id', 'text').execute();

  await s
    .createTable('ring_upload_reservations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('ring_members.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.unique())
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s
    .createIndex('ring_upload_reservations_ring_idx')
    .on('ring_upload_reservations')
    .column('ring_id')
    .execute();
  await s
    .createIndex('ring_upload_reservations_updated_idx')
    .on('ring_upload_reservations')
    .columns(['kind', 'updated_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s.dropTable('ring_upload_reservations').ifExists().execute();
  await s.alterTable('ring_folders').dropColumn('created_by_member_id').execute();
  await s.alterTable('ring_files').dropColumn('key_epoch').execute();
  await s.alterTable('ring_files').dropColumn('file_key').execute();
}
