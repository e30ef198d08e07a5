import type { Kysely } from 'kysely';

/**
 * Signed, encrypted metadata of files and folders (issue 27, review M3): `meta` holds the opaque
 * blob the browser sealed (name, type, folder and uploader of a file under the file's key; name
 * and parent of a folder under the Ring names key), null for items from before it until the next
 * member who opens their folder migrates them. The server only stores and returns it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ring_files').addColumn('meta', 'text').execute();
  await db.schema.alterTable('ring_folders').addColumn('meta', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ring_files').dropColumn('meta').execute();
  await db.schema.alterTable('ring_folders').dropColumn('meta').execute();
}
