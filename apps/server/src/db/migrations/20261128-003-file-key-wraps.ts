import type { Kysely } from 'kysely';

/**
 * Existing files given to a member admitted later (issue 24, « Donner accès aux fichiers
 * existants »): the admitting member's browser unwraps each file key with the epoch key it was
 * wrapped under and wraps it again under the admission's epoch key. `ring_file_key_wraps` keeps
 * those extra wraps (opaque JSON, like `ring_files.file_key`), one per file and epoch: the first
 * stored stays (a later wrap cannot replace one), and they go with their file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ring_file_key_wraps')
    .addColumn('file_id', 'text', (c) => c.notNull().references('ring_files.id').onDelete('cascade'))
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('created_by_member_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ring_file_key_wraps_pk', ['file_id', 'epoch'])
    .execute();
  await db.schema
    .createIndex('ring_file_key_wraps_ring_idx')
    .on('ring_file_key_wraps')
    .columns(['ring_id', 'file_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ring_file_key_wraps').execute();
}
