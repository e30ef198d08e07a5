import type { Kysely } from 'kysely';

/**
 * `ring_member_tokens` (issue 28): a Ring member's « Mot de passe oublié » link, as customers have
 * theirs in `customer_tokens` — only the token's SHA-256 is stored, with its expiry and single use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ring_member_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('member_id', 'text', (c) => c.notNull().references('ring_members.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ring_member_tokens_member_idx')
    .on('ring_member_tokens')
    .columns(['member_id', 'purpose'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ring_member_tokens').ifExists().execute();
}
