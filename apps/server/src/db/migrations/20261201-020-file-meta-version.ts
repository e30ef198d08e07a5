import type { Kysely } from 'kysely';

/**
 * The version a member claims for a file's sealed metadata when it moves the file (issue 28:
 * « Déplacer »). The signed version lives inside the encrypted blob, where the server cannot read
 * it; this clear copy lets the server accept only a newer claim than the last one (two members
 * moving the same file at once: the second is refused, not silently overwritten). Readers still
 * check the signed version themselves. Null for files never moved (version 1 or unknown).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ring_files').addColumn('meta_version', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ring_files').dropColumn('meta_version').execute();
}
