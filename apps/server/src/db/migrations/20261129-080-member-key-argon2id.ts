import type { Kysely } from 'kysely';

/**
 * Member key records with Argon2id and a recovery copy (issue 27, M1). `member_keys.kdf`: the key
 * derivation of the record (`pbkdf2-sha256` for every record written before, `argon2id` for
 * records sealed or re-sealed from now on); `kdf_mem_kib`: Argon2id's memory (null for PBKDF2);
 * `recovery_json`: the identity keys sealed under the member's recovery key (« Clé de secours »),
 * opaque JSON, null when the member has none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('member_keys')
    .addColumn('kdf', 'text', (c) => c.notNull().defaultTo('pbkdf2-sha256'))
    .execute();
  await db.schema.alterTable('member_keys').addColumn('kdf_mem_kib', 'integer').execute();
  await db.schema.alterTable('member_keys').addColumn('recovery_json', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['recovery_json', 'kdf_mem_kib', 'kdf'])
    await db.schema.alterTable('member_keys').dropColumn(column).execute();
}
