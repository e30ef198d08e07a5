import type { Kysely } from 'kysely';

/**
 * Web Push (issue 29): the server's VAPID key pair (one row, generated at first start, never
 * exported by backups) and the members' push subscriptions (one per device, at most
 * WEB_PUSH_MAX_SUBSCRIPTIONS per member), gone with the member.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('web_push_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('push_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('member_id', 'text', (c) => c.notNull().references('ring_members.id').onDelete('cascade'))
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('p256dh', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_error_at', 'text')
    .addUniqueConstraint('push_subscriptions_member_endpoint_uq', ['member_id', 'endpoint'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('push_subscriptions').ifExists().execute();
  await db.schema.dropTable('web_push_keys').ifExists().execute();
}
