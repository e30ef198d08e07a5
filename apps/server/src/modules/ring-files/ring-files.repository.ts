import { sql } from 'kysely';
import type { Database } from '../../db/database';
import type { RingFilesTable, RingFoldersTable, RingUploadReservationsTable } from '../../db/schema';

export type RingFileRow = RingFilesTable;
export type RingFolderRow = RingFoldersTable;
export type ReservationRow = RingUploadReservationsTable;

/**
 * `column` starts with `prefix`. Not LIKE: "_" is a LIKE wildcard and a base64url character.
 * substr and || are the same on SQLite and PostgreSQL; paths are ASCII, so characters are bytes.
 */
const startsWith = (column: string, prefix: string) =>
  sql<boolean>`substr(${sql.ref(column)}, 1, ${prefix.length}) = ${prefix}`;

/** SQL for `column` with its leading `oldPrefix` replaced by `newPrefix`. */
const replacedPrefix = (column: string, oldPrefix: string, newPrefix: string) =>
  sql<string>`cast(${newPrefix} as text) || substr(${sql.ref(column)}, ${oldPrefix.length + 1})`;

/** SQL of the Ring file space: files, folders, quota reservations. */
export class RingFilesRepository {
  constructor(private readonly db: Database) {}

  // ---- files ----------------------------------------------------------------------------

  findFile(ringId: string, id: string, trx: Database = this.db): Promise<RingFileRow | undefined> {
    return trx
      .selectFrom('ring_files')
      .selectAll()
      .where('ring_id', '=', ringId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Files of one folder, oldest first (names are encrypted: the browser sorts them). */
  findFilesInFolder(ringId: string, folder: string): Promise<RingFileRow[]> {
    return this.db
      .selectFrom('ring_files')
      .selectAll()
      .where('ring_id', '=', ringId)
      .where('folder_path', '=', folder)
      .orderBy('uploaded_at')
      .orderBy('id')
      .execute();
  }

  /** Which of these folders hold at least one file (a folder must be empty to be deleted). */
  async foldersHoldingFiles(ringId: string, folders: string[]): Promise<Set<string>> {
    if (folders.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('ring_files')
      .select('folder_path')
      .distinct()
      .where('ring_id', '=', ringId)
      .where('folder_path', 'in', folders)
      .execute();
    return new Set(rows.map((row) => row.folder_path));
  }

  async fileIdExists(id: string, trx: Database = this.db): Promise<boolean> {
    const row = await trx.selectFrom('ring_files').select('id').where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  async insertFile(row: RingFileRow, trx: Database = this.db): Promise<void> {
    await trx.insertInto('ring_files').values(row).execute();
  }

  async updateFile(
    ringId: string,
    id: string,
    changes: Partial<Pick<RingFileRow, 'name' | 'original_name' | 'extension' | 'updated_at' | 'meta'>>,
  ): Promise<void> {
    await this.db
      .updateTable('ring_files')
      .set(changes)
      .where('ring_id', '=', ringId)
      .where('id', '=', id)
      .execute();
  }

  /**
   * Moves a file into `folder` with new sealed metadata, under the Ring's lock (a concurrent rmdir
   * of the destination waits): only while the destination exists and the last claimed metadata
   * version is below `metaVersion` (null: never moved, version 1 or unknown). 'moved', 'no_folder'
   * or 'stale' (the file changed meanwhile, or is gone).
   */
  async moveFile(
    ringId: string,
    id: string,
    move: { folder: string; meta: string; metaVersion: number; updatedAt: string },
  ): Promise<'moved' | 'no_folder' | 'stale'> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockRing(ringId, trx);
      if (move.folder !== '' && !(await this.findFolder(ringId, move.folder, trx))) return 'no_folder';
      const result = await trx
        .updateTable('ring_files')
        .set({
          folder_path: move.folder,
          meta: move.meta,
          meta_version: move.metaVersion,
          updated_at: move.updatedAt,
        })
        .where('ring_id', '=', ringId)
        .where('id', '=', id)
        .where('meta', 'is not', null)
        // Never moved: version 1 or unknown (the request's version is at least 2).
        .where((eb) => eb.or([eb('meta_version', 'is', null), eb('meta_version', '<', move.metaVersion)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n ? 'moved' : 'stale';
    });
  }

  /** Deletes a file's row: true when it was there. */
  async deleteFile(ringId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('ring_files')
      .where('ring_id', '=', ringId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Bytes of a Ring's stored files. */
  async usedBytes(ringId: string, trx: Database = this.db): Promise<number> {
    const row = await trx
      .selectFrom('ring_files')
      // sum(bigint) is numeric on PostgreSQL, which pg returns as a string.
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('size_bytes'), eb.lit(0)).as('bytes'))
      .where('ring_id', '=', ringId)
      .executeTakeFirstOrThrow();
    return Number(row.bytes);
  }

  /** Bytes of every Ring's stored files (the admin disk figure when files live outside DATA_DIR). */
  async totalStoredBytes(): Promise<number> {
    const row = await this.db
      .selectFrom('ring_files')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('size_bytes'), eb.lit(0)).as('bytes'))
      .executeTakeFirstOrThrow();
    return Number(row.bytes);
  }

  // ---- folders --------------------------------------------------------------------------

  findFolder(ringId: string, path: string, trx: Database = this.db): Promise<RingFolderRow | undefined> {
    return trx
      .selectFrom('ring_folders')
      .selectAll()
      .where('ring_id', '=', ringId)
      .where('path', '=', path)
      .executeTakeFirst();
  }

  /** The folders at these paths (a folder's trail from the root), in no order. */
  findFoldersAt(ringId: string, paths: string[]): Promise<RingFolderRow[]> {
    if (paths.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('ring_folders')
      .selectAll()
      .where('ring_id', '=', ringId)
      .where('path', 'in', paths)
      .execute();
  }

  /** Sets a folder's sealed metadata (a migration: its path stays). */
  async updateFolderMeta(ringId: string, path: string, meta: string): Promise<boolean> {
    const result = await this.db
      .updateTable('ring_folders')
      .set({ meta })
      .where('ring_id', '=', ringId)
      .where('path', '=', path)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The folders below `parent` ("" = every folder), at any depth. */
  findFoldersBelow(ringId: string, parent: string): Promise<RingFolderRow[]> {
    let query = this.db.selectFrom('ring_folders').selectAll().where('ring_id', '=', ringId);
    if (parent !== '') query = query.where(startsWith('path', `${parent}/`));
    return query.orderBy('created_at').orderBy('id').execute();
  }

  /**
   * Creates a folder under `parent` ("" = root), under the Ring's lock (a concurrent rmdir of the
   * parent waits): 'created', 'exists' or 'no_parent'.
   */
  async createFolder(row: RingFolderRow, parent: string): Promise<'created' | 'exists' | 'no_parent'> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockRing(row.ring_id, trx);
      if (parent !== '' && !(await this.findFolder(row.ring_id, parent, trx))) return 'no_parent';
      if (await this.findFolder(row.ring_id, row.path, trx)) return 'exists';
      await trx.insertInto('ring_folders').values(row).execute();
      return 'created';
    });
  }

  /** True when a folder holds a file or a subfolder, at any depth. */
  async folderHasContent(ringId: string, path: string, trx: Database = this.db): Promise<boolean> {
    const file = await trx
      .selectFrom('ring_files')
      .select('id')
      .where('ring_id', '=', ringId)
      .where((eb) => eb.or([eb('folder_path', '=', path), startsWith('folder_path', `${path}/`)]))
      .limit(1)
      .executeTakeFirst();
    if (file) return true;
    const folder = await trx
      .selectFrom('ring_folders')
      .select('id')
      .where('ring_id', '=', ringId)
      .where(startsWith('path', `${path}/`))
      .limit(1)
      .executeTakeFirst();
    return folder !== undefined;
  }

  /**
   * Deletes a folder if it is empty, under the Ring's lock (an upload finishing into it waits):
   * 'deleted', 'not_empty' or 'missing'.
   */
  async deleteEmptyFolder(ringId: string, path: string): Promise<'deleted' | 'not_empty' | 'missing'> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockRing(ringId, trx);
      if (await this.folderHasContent(ringId, path, trx)) return 'not_empty';
      const result = await trx
        .deleteFrom('ring_folders')
        .where('ring_id', '=', ringId)
        .where('path', '=', path)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1 ? 'deleted' : 'missing';
    });
  }

  /**
   * Moves a folder with its subfolders and every file in them to `newPath`, in one transaction
   * under the Ring's lock (an upload finishing into the folder waits, then finds it gone): 'moved',
   * or why not. The caller has checked that `newPath` is not inside `oldPath`.
   */
  async moveFolderTree(
    ringId: string,
    oldPath: string,
    newPath: string,
    newParent: string,
    nowIso: string,
    /** The moved folder's new sealed metadata; null when the browser sent none (it is stale then). */
    meta: string | null = null,
  ): Promise<'moved' | 'missing' | 'no_parent' | 'exists'> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockRing(ringId, trx);
      if (!(await this.findFolder(ringId, oldPath, trx))) return 'missing';
      if (newParent !== '' && !(await this.findFolder(ringId, newParent, trx))) return 'no_parent';
      if (await this.findFolder(ringId, newPath, trx)) return 'exists';
      await trx
        .updateTable('ring_folders')
        .set({ path: replacedPrefix('path', `${oldPath}/`, `${newPath}/`) })
        .where('ring_id', '=', ringId)
        .where(startsWith('path', `${oldPath}/`))
        .execute();
      await trx
        .updateTable('ring_folders')
        .set({ path: newPath, meta })
        .where('ring_id', '=', ringId)
        .where('path', '=', oldPath)
        .execute();
      await trx
        .updateTable('ring_files')
        .set({
          folder_path: replacedPrefix('folder_path', `${oldPath}/`, `${newPath}/`),
          updated_at: nowIso,
        })
        .where('ring_id', '=', ringId)
        .where(startsWith('folder_path', `${oldPath}/`))
        .execute();
      await trx
        .updateTable('ring_files')
        .set({ folder_path: newPath, updated_at: nowIso })
        .where('ring_id', '=', ringId)
        .where('folder_path', '=', oldPath)
        .execute();
      return 'moved';
    });
  }

  // ---- reservations ---------------------------------------------------------------------

  /**
   * Locks the Ring row until the transaction ends (a no-op update: a row lock on PostgreSQL, the
   * write lock on SQLite), so quota checks and reservations of one Ring happen one at a time.
   */
  async lockRing(ringId: string, trx: Database): Promise<number | undefined> {
    await trx
      .updateTable('rings')
      .set((eb) => ({ storage_quota_bytes: eb.ref('storage_quota_bytes') }))
      .where('id', '=', ringId)
      .execute();
    const row = await trx
      .selectFrom('rings')
      .select('storage_quota_bytes')
      .where('id', '=', ringId)
      .executeTakeFirst();
    return row ? Number(row.storage_quota_bytes) : undefined;
  }

  /**
   * Bytes of stored files and bytes reserved by uploads in progress, read in one statement (one
   * snapshot): a file committed meanwhile is counted once, as a file or as its reservation.
   */
  async usage(ringId: string, trx: Database = this.db): Promise<{ used: number; reserved: number }> {
    const row = await trx
      .selectNoFrom((eb) => [
        eb
          .selectFrom('ring_files')
          .select((f) => f.fn.coalesce(f.fn.sum<number | string>('size_bytes'), f.lit(0)).as('bytes'))
          .where('ring_id', '=', ringId)
          .as('used'),
        eb
          .selectFrom('ring_upload_reservations')
          .select((r) => r.fn.coalesce(r.fn.sum<number | string>('bytes'), r.lit(0)).as('bytes'))
          .where('ring_id', '=', ringId)
          .as('reserved'),
      ])
      .executeTakeFirstOrThrow();
    return { used: Number(row.used), reserved: Number(row.reserved) };
  }

  async insertReservation(row: ReservationRow, trx: Database = this.db): Promise<void> {
    await trx.insertInto('ring_upload_reservations').values(row).execute();
  }

  findReservation(id: string): Promise<ReservationRow | undefined> {
    return this.db.selectFrom('ring_upload_reservations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async reservationForFileIdExists(fileId: string, trx: Database = this.db): Promise<boolean> {
    const row = await trx
      .selectFrom('ring_upload_reservations')
      .select('id')
      .where('file_id', '=', fileId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async touchReservation(id: string, nowIso: string): Promise<void> {
    await this.db
      .updateTable('ring_upload_reservations')
      .set({ updated_at: nowIso })
      .where('id', '=', id)
      .execute();
  }

  /** Releases a reservation: true when it was still there. */
  async deleteReservation(id: string, trx: Database = this.db): Promise<boolean> {
    const result = await trx.deleteFrom('ring_upload_reservations').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Reservations of one kind without activity since `beforeIso`. */
  findIdleReservations(kind: ReservationRow['kind'], beforeIso: string): Promise<ReservationRow[]> {
    return this.db
      .selectFrom('ring_upload_reservations')
      .selectAll()
      .where('kind', '=', kind)
      .where('updated_at', '<', beforeIso)
      .execute();
  }

  async reservationIdsExist(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('ring_upload_reservations')
      .select('id')
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  }
}
