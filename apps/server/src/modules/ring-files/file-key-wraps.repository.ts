import type { Database } from '../../db/database';
import type { RingFileKeyWrapsTable } from '../../db/schema';

export type FileKeyWrapRow = RingFileKeyWrapsTable;

/** SQL of the extra wraps of file keys (existing files given to a member admitted later). */
export class FileKeyWrapsRepository {
  constructor(private readonly db: Database) {}

  /** The extra wraps of these files of a Ring, by file then epoch. */
  async wrapsOf(ringId: string, fileIds: readonly string[]): Promise<FileKeyWrapRow[]> {
    if (fileIds.length === 0) return [];
    const rows: FileKeyWrapRow[] = [];
    // Bounded IN lists (a folder may list thousands of files).
    for (let i = 0; i < fileIds.length; i += 500) {
      rows.push(
        ...(await this.db
          .selectFrom('ring_file_key_wraps')
          .selectAll()
          .where('ring_id', '=', ringId)
          .where('file_id', 'in', fileIds.slice(i, i + 500))
          .orderBy('file_id')
          .orderBy('epoch')
          .execute()),
      );
    }
    return rows;
  }

  /** One page of a Ring's files by id (every folder), after `after`. */
  filesPage(
    ringId: string,
    after: string,
    limit: number,
  ): Promise<Array<{ id: string; file_key: string | null }>> {
    return this.db
      .selectFrom('ring_files')
      .select(['id', 'file_key'])
      .where('ring_id', '=', ringId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** The folder of each of these ids that is a file of the Ring. */
  async foldersOfFiles(ringId: string, fileIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('ring_files')
      .select(['id', 'folder_path'])
      .where('ring_id', '=', ringId)
      .where('id', 'in', [...fileIds])
      .execute();
    return new Map(rows.map((r) => [r.id, r.folder_path]));
  }

  /** Stores wraps; one already stored for a file and epoch stays. The number stored. */
  async insertWraps(rows: readonly FileKeyWrapRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const result = await this.db
      .insertInto('ring_file_key_wraps')
      .values([...rows])
      .onConflict((oc) => oc.columns(['file_id', 'epoch']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }
}
