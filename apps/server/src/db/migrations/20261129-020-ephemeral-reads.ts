import type { Kysely } from 'kysely';

/**
 * Ephemeral messages "self-destruct after reading" (issue 25). `messages.ephemeral_sec`: the
 * delay the sender signed; `messages.first_read_at`: when another member first displayed it (the
 * sender's copy counts down from then). `message_reads`: each member's first display of an
 * ephemeral message; `recipient` 1 for the members who could read it at sending, whose reads
 * decide when the server deletes it (`expires_at`, at most 7 days after sending).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('ephemeral_sec', 'integer').execute();
  await db.schema.alterTable('messages').addColumn('first_read_at', 'text').execute();
  await db.schema
    .createTable('message_reads')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('ring_members.id').onDelete('cascade'))
    .addColumn('recipient', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('read_at', 'text')
    .addPrimaryKeyConstraint('message_reads_pk', ['message_id', 'member_id'])
    .execute();
  await db.schema.createIndex('message_reads_member_idx').on('message_reads').column('member_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('message_reads').execute();
  await db.schema.alterTable('messages').dropColumn('first_read_at').execute();
  await db.schema.alterTable('messages').dropColumn('ephemeral_sec').execute();
}
