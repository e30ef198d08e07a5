import { sql, type Kysely } from 'kysely';

/**
 * Ring keys by epoch and reliable message delivery (issues 10 and 11).
 *
 * - `member_keys`: the member's published public keys (X25519, Ed25519), their safety number and a
 *   key version (0: nothing published; 1 on first publish, +1 on each "Réinitialiser mes clés").
 * - `rings`: the current epoch (0: none yet), when it began and how many messages it carried, a
 *   rotation-due flag (membership change) and the owner's "share history" setting.
 * - `ring_members.first_readable_epoch`: the first epoch a member may read (the epoch current when
 *   it joined, the next one after a reactivation).
 * - `ring_epochs` and `epoch_key_shares`: each epoch, and its key wrapped to each member (opaque JSON).
 * - `conversations.last_seq` and `messages.seq`: a per-conversation sequence; `client_message_id`
 *   makes sends idempotent; `epoch` is the key epoch of the envelope. `conversation_reads`: unread
 *   counts.
 *
 * Schema builder only, plus two plain SQL statements that run on both dialects: rows written before
 * this migration get sequence numbers in creation order, so the unique indexes can be built.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;

  await s
    .alterTable('member_keys')
    .addColumn('public_x25519', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await s
    .alterTable('member_keys')
    .addColumn('public_ed25519', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await s
    .alterTable('member_keys')
    .addColumn('fingerprint', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await s
    .alterTable('member_keys')
    .addColumn('key_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await s
    .alterTable('rings')
    .addColumn('current_epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await s.alterTable('rings').addColumn('epoch_created_at', 'text').execute();
  await s
    .alterTable('rings')
    .addColumn('epoch_message_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await s
    .alterTable('rings')
    .addColumn('rotation_due', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await s
    .alterTable('rings')
    .addColumn('share_history', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await s
    .alterTable('ring_members')
    .addColumn('first_readable_epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await s
    .createTable('ring_epochs')
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('created_by_member_id', 'text', (c) => c.references('ring_members.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ring_epochs_pk', ['ring_id', 'epoch'])
    .execute();

  await s
    .createTable('epoch_key_shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('recipient_member_id', 'text', (c) =>
      c.notNull().references('ring_members.id').onDelete('cascade'),
    )
    .addColumn('recipient_key_version', 'integer', (c) => c.notNull())
    .addColumn('sender_member_id', 'text', (c) => c.references('ring_members.id').onDelete('set null'))
    .addColumn('share', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint(
      'epoch_key_shares_epoch_fk',
      ['ring_id', 'epoch'],
      'ring_epochs',
      ['ring_id', 'epoch'],
      (fk) => fk.onDelete('cascade'),
    )
    .addUniqueConstraint('epoch_key_shares_recipient_unique', ['ring_id', 'epoch', 'recipient_member_id'])
    .execute();
  await s
    .createIndex('epoch_key_shares_recipient_idx')
    .on('epoch_key_shares')
    .column('recipient_member_id')
    .execute();

  await s
    .alterTable('conversations')
    .addColumn('last_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await s
    .alterTable('messages')
    .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await s
    .alterTable('messages')
    .addColumn('client_message_id', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await s
    .alterTable('messages')
    .addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // Messages stored before sequences existed: numbered in creation order, their id as client id.
  await sql`
    update messages set
      seq = (
        select count(*) from messages earlier
        where earlier.conversation_id = messages.conversation_id
          and (earlier.created_at < messages.created_at
            or (earlier.created_at = messages.created_at and earlier.id <= messages.id))
      ),
      client_message_id = id`.execute(db);
  await sql`
    update conversations set last_seq = coalesce(
      (select max(seq) from messages where messages.conversation_id = conversations.id), 0)`.execute(db);

  await s
    .createIndex('messages_conversation_seq_unique')
    .on('messages')
    .columns(['conversation_id', 'seq'])
    .unique()
    .execute();
  await s
    .createIndex('messages_client_id_unique')
    .on('messages')
    .columns(['conversation_id', 'sender_member_id', 'client_message_id'])
    .unique()
    .execute();

  await s
    .createTable('conversation_reads')
    .addColumn('conversation_id', 'text', (c) =>
      c.notNull().references('conversations.id').onDelete('cascade'),
    )
    .addColumn('member_id', 'text', (c) => c.notNull().references('ring_members.id').onDelete('cascade'))
    .addColumn('last_read_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('conversation_reads_pk', ['conversation_id', 'member_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s.dropTable('conversation_reads').execute();
  await s.dropIndex('messages_client_id_unique').execute();
  await s.dropIndex('messages_conversation_seq_unique').execute();
  await s.alterTable('messages').dropColumn('epoch').execute();
  await s.alterTable('messages').dropColumn('client_message_id').execute();
  await s.alterTable('messages').dropColumn('seq').execute();
  await s.alterTable('conversations').dropColumn('last_seq').execute();
  await s.dropTable('epoch_key_shares').execute();
  await s.dropTable('ring_epochs').execute();
  await s.alterTable('ring_members').dropColumn('first_readable_epoch').execute();
  for (const column of [
    'share_history',
    'rotation_due',
    'epoch_message_count',
    'epoch_created_at',
    'current_epoch',
  ])
    await s.alterTable('rings').dropColumn(column).execute();
  for (const column of ['key_version', 'fingerprint', 'public_ed25519', 'public_x25519'])
    await s.alterTable('member_keys').dropColumn(column).execute();
}
