import { randomUUID } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import {
  ENCRYPTED_FILE_FORMAT,
  RING_FILES_MESSAGES,
  UPLOAD_FIELD_NAMES,
  ZUploadFields,
  isFolderPath,
  plainFileSize,
  type TListFilesResponse,
  type TRingFile,
  type TRingFolder,
  type ZMkdirRequest,
  type ZMoveFileRequest,
  type ZRenameFileRequest,
  type ZRenameFolderRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { isUniqueViolation } from '../../db/database';
import { AppError, badRequest, conflict, forbidden, notFound, parseInput } from '../../lib/app-error';
import type { RingCaller } from '../../plugins/auth';
import { StorageLimitError, type ByteRange } from '../../providers/storage/storage-provider';
import { FileKeyWrapsService } from './file-key-wraps.service';
import { toRingFile, toRingFolder } from './ring-files.mappers';
import {
  fileSharingAllowed,
  folderRenamePlan,
  isFolderMetaMigration,
  joinPath,
  maxFileBytesOf,
  mayManageFile,
  mayManageFolder,
  parentOf,
  parseByteRange,
  uploadAllowance,
  uploadRefusal,
  type UploadLimit,
  type UploadSizeHints,
} from './ring-files.policy';
import { RingFilesRepository, type RingFileRow, type ReservationRow } from './ring-files.repository';

/** Upload fields as checked (ZUploadFields output). */
export type UploadFields = z.output<typeof ZUploadFields>;

/** Bytes set aside for one upload, and the bound the stream is held to. */
export interface Reservation {
  row: ReservationRow;
  limitedBy: UploadLimit;
}

/** The content did not start like an SRF1 file: it was not encrypted by the browser. */
export class NotEncryptedError extends Error {
  constructor() {
    super('not an SRF1 stream');
    this.name = 'NotEncryptedError';
  }
}

/**
 * Checks, as bytes go by, that a stream starts with the SRF1 magic ("SRF1", version 1): a file
 * sent without the browser's encryption is refused after its first bytes, not stored.
 */
export class EncryptedStreamCheck extends Transform {
  private seen = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const magic = ENCRYPTED_FILE_FORMAT.magic;
    for (let i = 0; this.seen + i < magic.length && i < chunk.length; i++) {
      if (chunk[i] !== magic[this.seen + i]) return callback(new NotEncryptedError());
    }
    this.seen += chunk.length;
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    callback(this.seen < ENCRYPTED_FILE_FORMAT.magic.length ? new NotEncryptedError() : null);
  }
}

/** The first bytes of a file on disk start like an SRF1 file. */
export function startsLikeEncryptedFile(firstBytes: Buffer): boolean {
  const magic = ENCRYPTED_FILE_FORMAT.magic;
  return firstBytes.length >= magic.length && magic.every((b, i) => firstBytes[i] === b);
}

/** The object key of a stored Ring file. */
export const objectKeyOf = (file: Pick<RingFileRow, 'ring_id' | 'storage_key'>) =>
  `${file.ring_id}/${file.storage_key}`;

/**
 * The Ring file space: list, upload (multipart here, tus in ring-files.tus.ts), download, rename,
 * delete, folders. Every method takes the Ring caller first and checks the plan and the rights
 * before anything else; every lookup is scoped to the caller's Ring, so another Ring's file or
 * folder is "not found" whatever its id. Changes are announced to the Ring room after commit.
 */
export class RingFilesService {
  readonly repo: RingFilesRepository;
  readonly keyWraps: FileKeyWrapsService;

  constructor(private readonly ctx: AppContext) {
    this.repo = new RingFilesRepository(ctx.db);
    this.keyWraps = new FileKeyWrapsService(ctx);
  }

  /** A file as the caller sees it, with the extra wraps of its key. */
  private async viewOf(caller: Pick<RingCaller, 'ring' | 'member'>, file: RingFileRow): Promise<TRingFile> {
    const wraps = await this.keyWraps.wrapsByFile(caller.ring.id, [file.id]);
    return toRingFile(file, caller.member, wraps.get(file.id) ?? []);
  }

  /** 403 with the French explanation when the Ring's plan has no file sharing (spec 2 §6). */
  assertFileSharing(caller: RingCaller): void {
    if (!fileSharingAllowed(caller.ring.plan_slug)) throw forbidden(RING_FILES_MESSAGES.fileSharingNotInPlan);
  }

  private nowIso(): string {
    return this.ctx.clock.now().toISOString();
  }

  /** Tells the Ring's members showing these folders to read them again. */
  announce(ringId: string, ...folders: string[]): void {
    for (const folder of new Set(folders))
      this.ctx.realtime.emitToRing(ringId, 'files_changed', { ringId, folder });
  }

  private async requireFile(caller: RingCaller, id: string): Promise<RingFileRow> {
    const file = await this.repo.findFile(caller.ring.id, id);
    if (!file) throw notFound(RING_FILES_MESSAGES.fileNotFound);
    return file;
  }

  private async assertFolderExists(ringId: string, path: string, message: string): Promise<void> {
    if (path !== '' && !(await this.repo.findFolder(ringId, path))) throw notFound(message);
  }

  // ---- reading ------------------------------------------------------------------------------

  async list(caller: RingCaller, folder: string): Promise<TListFilesResponse> {
    this.assertFileSharing(caller);
    const { ring, member } = caller;
    await this.assertFolderExists(ring.id, folder, RING_FILES_MESSAGES.folderNotFound);
    const trailPaths =
      folder === '' ? [] : folder.split('/').map((_, i, all) => all.slice(0, i + 1).join('/'));
    const [files, below, used, trail] = await Promise.all([
      this.repo.findFilesInFolder(ring.id, folder),
      this.repo.findFoldersBelow(ring.id, folder),
      this.repo.usedBytes(ring.id),
      this.repo.findFoldersAt(ring.id, trailPaths),
    ]);
    const wraps = await this.keyWraps.wrapsByFile(
      ring.id,
      files.map((f) => f.id),
    );
    const quota = Number(ring.storage_quota_bytes);
    const children = below.filter((f) => parentOf(f.path) === folder);
    // « Supprimer » is offered only for an empty folder (issue 28): no file, no subfolder.
    const withFiles = await this.repo.foldersHoldingFiles(
      ring.id,
      children.map((f) => f.path),
    );
    const withSubfolders = new Set(below.map((f) => parentOf(f.path)));
    const isEmpty = (path: string) => !withFiles.has(path) && !withSubfolders.has(path);
    return {
      success: true,
      files: files.map((f) => toRingFile(f, member, wraps.get(f.id) ?? [])),
      folders: children.map((f) => ({ ...toRingFolder(f, member), empty: isEmpty(f.path) })),
      folder,
      trail: trail.sort((a, b) => a.path.length - b.path.length).map((f) => toRingFolder(f, member)),
      storage: { allocated: quota, used, remaining: Math.max(0, quota - used) },
      max_file_size_mb: ring.max_file_size_mb,
      max_file_bytes: maxFileBytesOf(ring),
    };
  }

  /**
   * A file's bytes for download.php: the whole file, or one byte range of it (resumed or
   * streamed downloads). 416 for a range past the end.
   */
  async openDownload(
    caller: RingCaller,
    id: string,
    rangeHeader: string | undefined,
  ): Promise<{ file: RingFileRow; size: number; range: ByteRange | undefined; body: Readable }> {
    this.assertFileSharing(caller);
    const file = await this.requireFile(caller, id);
    const size = Number(file.size_bytes);
    const range = parseByteRange(rangeHeader, size);
    if (range === 'unsatisfiable') throw new AppError(416, RING_FILES_MESSAGES.rangeNotSatisfiable, { size });
    try {
      const body = await this.ctx.storage.get(objectKeyOf(file), range);
      return { file, size, range, body };
    } catch (error) {
      this.ctx.logger.error({ err: error, fileId: file.id }, 'ring file missing from storage');
      throw notFound(RING_FILES_MESSAGES.downloadError);
    }
  }

  // ---- uploads ------------------------------------------------------------------------------

  /**
   * Sets bytes aside for an upload, under a lock on the Ring row: the quota counts stored files
   * and every other reservation, so concurrent uploads cannot overshoot it together. Refused
   * (413, French reason) when the file is sure not to fit.
   */
  async reserve(
    caller: RingCaller,
    hints: UploadSizeHints,
    options: { kind: ReservationRow['kind']; id?: string; fileId?: string; metadata?: string },
  ): Promise<Reservation> {
    this.assertFileSharing(caller);
    const { ring, member } = caller;
    const maxFileBytes = maxFileBytesOf(ring);
    const now = this.nowIso();
    try {
      return await this.ctx.db.transaction().execute(async (trx) => {
        const quota = await this.repo.lockRing(ring.id, trx);
        if (quota === undefined) throw notFound(RING_FILES_MESSAGES.uploadError);
        const { used: usedBytes, reserved: reservedBytes } = await this.repo.usage(ring.id, trx);
        const allowance = uploadAllowance(
          { quotaBytes: quota, usedBytes, reservedBytes, maxFileBytes },
          hints,
        );
        if (!allowance.ok) throw new AppError(413, uploadRefusal(allowance.reason, ring.max_file_size_mb));
        if (options.fileId !== undefined && (await this.repo.fileIdExists(options.fileId, trx)))
          throw conflict(RING_FILES_MESSAGES.fileIdTaken);
        const row: ReservationRow = {
          id: options.id ?? randomUUID(),
          ring_id: ring.id,
          member_id: member.id,
          kind: options.kind,
          bytes: allowance.reserveBytes,
          file_id: options.fileId ?? null,
          metadata: options.metadata ?? '{}',
          created_at: now,
          updated_at: now,
        };
        await this.repo.insertReservation(row, trx);
        return { row, limitedBy: allowance.limitedBy };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(RING_FILES_MESSAGES.fileIdTaken);
      throw error;
    }
  }

  async release(reservationId: string): Promise<void> {
    await this.repo.deleteReservation(reservationId);
  }

  /**
   * Stores the received bytes as a file of the caller's Ring and releases the reservation, in one
   * transaction; the caller removes the stored object if this throws.
   */
  async commitUpload(
    caller: RingCaller,
    reservation: ReservationRow,
    fields: UploadFields,
    stored: { storageKey: string; size: number },
  ): Promise<TRingFile> {
    const { ring, member } = caller;
    const now = this.nowIso();
    const row: RingFileRow = {
      id: fields.file_id ?? randomUUID(),
      ring_id: ring.id,
      folder_path: fields.folder,
      name: fields.name,
      extension: fields.extension,
      original_name: fields.original_name ?? fields.name,
      // The real type is part of the encrypted content: nothing about it is stored in clear.
      mime_type: 'application/octet-stream',
      size_bytes: stored.size,
      storage_key: stored.storageKey,
      uploaded_by_member_id: member.id,
      uploaded_at: now,
      updated_at: now,
      file_key: JSON.stringify(fields.file_key),
      key_epoch: fields.file_key.epoch,
      meta: fields.meta ?? null,
      meta_version: null,
    };
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        // Under the Ring's lock, like reservations: the bytes pass from reservation to file at once.
        await this.repo.lockRing(ring.id, trx);
        if (row.folder_path !== '' && !(await this.repo.findFolder(ring.id, row.folder_path, trx)))
          throw notFound(RING_FILES_MESSAGES.destinationGone);
        if (await this.repo.fileIdExists(row.id, trx)) throw conflict(RING_FILES_MESSAGES.fileIdTaken);
        await this.repo.insertFile(row, trx);
        await this.repo.deleteReservation(reservation.id, trx);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(RING_FILES_MESSAGES.fileIdTaken);
      throw error;
    }
    this.announce(ring.id, row.folder_path);
    // A new file: no other wrap of its key yet.
    return toRingFile(row, member, []);
  }

  /** Receives one multipart upload (upload.php); see MultipartUpload. */
  startMultipartUpload(caller: RingCaller, contentLength: number | undefined): MultipartUpload {
    this.assertFileSharing(caller);
    return new MultipartUpload(this.ctx, this, caller, contentLength);
  }

  // ---- changes ------------------------------------------------------------------------------

  async rename(
    caller: RingCaller,
    input: z.output<typeof ZRenameFileRequest>,
  ): Promise<{ changed: boolean; file: TRingFile }> {
    this.assertFileSharing(caller);
    const file = await this.requireFile(caller, input.id);
    // A file without sealed metadata is migrated by whichever member opens its folder first.
    const migration = file.meta === null && input.meta !== undefined;
    if (!migration && !mayManageFile(caller.member, file)) throw forbidden(RING_FILES_MESSAGES.ownFilesOnly);
    // Spec 2 §5: a blank or unchanged name changes nothing.
    if (
      input.new_name === '' ||
      (input.new_name === file.name && (input.meta === undefined || input.meta === file.meta))
    )
      return { changed: false, file: await this.viewOf(caller, file) };
    const changes = {
      name: input.new_name,
      original_name: input.original_name ?? input.new_name,
      extension: input.extension ?? file.extension,
      // A rename without metadata leaves none (the old one names the old name).
      meta: input.meta ?? null,
      // A migration changes nothing the members see: the file keeps its date.
      updated_at: migration ? file.updated_at : this.nowIso(),
    };
    await this.repo.updateFile(caller.ring.id, file.id, changes);
    this.announce(caller.ring.id, file.folder_path);
    return { changed: true, file: await this.viewOf(caller, { ...file, ...changes }) };
  }

  /**
   * Moves a file into another folder (issue 28 « Déplacer »): the uploader, the owner or a Ring
   * admin, with the file's metadata sealed again naming the destination and signed by the mover.
   * The server cannot read the blob: it checks the caller's rights, that the destination exists,
   * and that the claimed version is above the last move's; readers check the signature, the
   * folder and the version (a move the server makes by itself shows « Emplacement non vérifié »).
   */
  async move(
    caller: RingCaller,
    input: z.output<typeof ZMoveFileRequest>,
  ): Promise<{ changed: boolean; file: TRingFile }> {
    this.assertFileSharing(caller);
    const file = await this.requireFile(caller, input.id);
    if (!mayManageFile(caller.member, file)) throw forbidden(RING_FILES_MESSAGES.ownFilesMoveOnly);
    // A file from before the metadata is migrated first (by whoever opens its folder).
    if (file.meta === null) throw conflict(RING_FILES_MESSAGES.moveNeedsMeta);
    if (input.folder === file.folder_path) return { changed: false, file: await this.viewOf(caller, file) };
    await this.assertFolderExists(caller.ring.id, input.folder, RING_FILES_MESSAGES.destinationGone);
    const changes = {
      folder_path: input.folder,
      meta: input.meta,
      meta_version: input.meta_version,
      updated_at: this.nowIso(),
    };
    const outcome = await this.repo.moveFile(caller.ring.id, file.id, {
      folder: input.folder,
      meta: input.meta,
      metaVersion: input.meta_version,
      updatedAt: changes.updated_at,
    });
    if (outcome === 'no_folder') throw notFound(RING_FILES_MESSAGES.destinationGone);
    if (outcome === 'stale') throw conflict(RING_FILES_MESSAGES.staleMetaVersion);
    this.announce(caller.ring.id, file.folder_path, input.folder);
    return { changed: true, file: await this.viewOf(caller, { ...file, ...changes }) };
  }

  /** Every folder of the Ring (the « Déplacer » dialog's destinations), by creation. */
  async listFolders(caller: RingCaller): Promise<TRingFolder[]> {
    this.assertFileSharing(caller);
    const folders = await this.repo.findFoldersBelow(caller.ring.id, '');
    return folders.map((f) => toRingFolder(f, caller.member));
  }

  async deleteFile(caller: RingCaller, id: string): Promise<void> {
    this.assertFileSharing(caller);
    const file = await this.requireFile(caller, id);
    if (!mayManageFile(caller.member, file)) throw forbidden(RING_FILES_MESSAGES.ownFilesOnly);
    if (!(await this.repo.deleteFile(caller.ring.id, file.id)))
      throw notFound(RING_FILES_MESSAGES.fileNotFound);
    await this.ctx.storage.delete(objectKeyOf(file)).catch((error: unknown) => {
      // The row is gone, so the file is gone for everyone; the object is only an orphan.
      this.ctx.logger.error({ err: error, fileId: file.id }, 'deleted ring file left in storage');
    });
    this.announce(caller.ring.id, file.folder_path);
  }

  async mkdir(caller: RingCaller, input: z.output<typeof ZMkdirRequest>): Promise<string> {
    this.assertFileSharing(caller);
    const { ring, member } = caller;
    const path = joinPath(input.parent, input.name);
    if (!isFolderPath(path)) throw badRequest(RING_FILES_MESSAGES.invalidFolder);
    let outcome;
    try {
      outcome = await this.repo.createFolder(
        {
          id: input.id ?? randomUUID(),
          ring_id: ring.id,
          path,
          created_at: this.nowIso(),
          created_by_member_id: member.id,
          meta: input.meta ?? null,
        },
        input.parent,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(RING_FILES_MESSAGES.folderExists);
      throw error;
    }
    if (outcome === 'no_parent') throw notFound(RING_FILES_MESSAGES.parentNotFound);
    if (outcome === 'exists') throw conflict(RING_FILES_MESSAGES.folderExists);
    this.announce(ring.id, input.parent);
    return path;
  }

  async renameFolder(
    caller: RingCaller,
    input: z.output<typeof ZRenameFolderRequest>,
  ): Promise<{ changed: boolean; folder: string }> {
    this.assertFileSharing(caller);
    const { ring, member } = caller;
    const folder = await this.repo.findFolder(ring.id, input.old_path);
    if (!folder) throw notFound(RING_FILES_MESSAGES.folderNotFound);
    // A folder without sealed metadata, or sealed under an older epoch, is migrated by whichever
    // member opens its parent first.
    const migration = isFolderMetaMigration(folder.meta, input.meta);
    if (!migration && !mayManageFolder(member, folder)) throw forbidden(RING_FILES_MESSAGES.ownFoldersOnly);
    const plan = folderRenamePlan(input.old_path, input.new_path);
    if (plan === 'unchanged') {
      if (input.meta === undefined || input.meta === folder.meta)
        return { changed: false, folder: input.old_path };
      if (!(await this.repo.updateFolderMeta(ring.id, input.old_path, input.meta)))
        throw notFound(RING_FILES_MESSAGES.folderNotFound);
      this.announce(ring.id, parentOf(input.old_path));
      return { changed: true, folder: input.old_path };
    }
    // A migration may rename the folder's segment (to its lookup tag), never move it elsewhere.
    if (
      migration &&
      !mayManageFolder(member, folder) &&
      parentOf(input.new_path) !== parentOf(input.old_path)
    )
      throw forbidden(RING_FILES_MESSAGES.ownFoldersOnly);
    if (plan === 'into_itself') throw badRequest(RING_FILES_MESSAGES.folderIntoItself);
    let outcome;
    try {
      outcome = await this.repo.moveFolderTree(
        ring.id,
        input.old_path,
        input.new_path,
        parentOf(input.new_path),
        this.nowIso(),
        input.meta ?? null,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(RING_FILES_MESSAGES.folderExists);
      throw error;
    }
    if (outcome === 'missing') throw notFound(RING_FILES_MESSAGES.folderNotFound);
    if (outcome === 'no_parent') throw notFound(RING_FILES_MESSAGES.parentNotFound);
    if (outcome === 'exists') throw conflict(RING_FILES_MESSAGES.folderExists);
    this.announce(ring.id, parentOf(input.old_path), parentOf(input.new_path));
    return { changed: true, folder: input.new_path };
  }

  async rmdir(caller: RingCaller, path: string): Promise<void> {
    this.assertFileSharing(caller);
    const { ring, member } = caller;
    const folder = await this.repo.findFolder(ring.id, path);
    if (!folder) throw notFound(RING_FILES_MESSAGES.folderNotFound);
    if (!mayManageFolder(member, folder)) throw forbidden(RING_FILES_MESSAGES.ownFoldersOnly);
    const outcome = await this.repo.deleteEmptyFolder(ring.id, path);
    if (outcome === 'not_empty') throw conflict(RING_FILES_MESSAGES.folderNotEmpty);
    if (outcome === 'missing') throw notFound(RING_FILES_MESSAGES.folderNotFound);
    this.announce(ring.id, parentOf(path));
  }
}

/**
 * The most the form fields of an upload can add to its body (a dozen fields of at most 16 KiB,
 * with their part headers): what Content-Length may exceed the file by.
 */
export const MULTIPART_FIELDS_ALLOWANCE = 256 * 1024;
/** Per-field size limit of upload.php's form fields. */
export const MULTIPART_FIELD_BYTES = 16 * 1024;

/**
 * One upload.php request: fields arrive (before or after the file), the file part is streamed
 * into storage under a reservation, then `finish` records the file. `abort` undoes everything:
 * no row, no object, no temporary file, no reservation.
 */
export class MultipartUpload {
  private readonly fields = new Map<string, string>();
  private reservation: Reservation | undefined;
  private stored: { storageKey: string; size: number } | undefined;
  private received = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly service: RingFilesService,
    private readonly caller: RingCaller,
    private readonly contentLength: number | undefined,
  ) {}

  /** Checks before any file byte is read that the request is not sure to exceed a limit. */
  async precheck(): Promise<void> {
    if (this.contentLength === undefined) return;
    const { ring } = this.caller;
    const lower = Math.max(0, this.contentLength - MULTIPART_FIELDS_ALLOWANCE);
    if (lower > maxFileBytesOf(ring))
      throw new AppError(413, uploadRefusal('too_large', ring.max_file_size_mb));
    const quota = Number(ring.storage_quota_bytes);
    const used = await this.service.repo.usedBytes(ring.id);
    if (lower > quota - used) throw new AppError(413, uploadRefusal('quota', ring.max_file_size_mb));
  }

  /** A form field; unknown names and repeats are ignored. */
  field(name: string, value: string): void {
    if ((UPLOAD_FIELD_NAMES as readonly string[]).includes(name) && !this.fields.has(name))
      this.fields.set(name, value);
  }

  /** Fields sent before the file are checked before its bytes are read. */
  private async checkEarlyFields(): Promise<void> {
    const shape = ZUploadFields.shape;
    for (const name of [
      'folder',
      'name',
      'original_name',
      'extension',
      'file_id',
      'file_key',
      'meta',
    ] as const) {
      const value = this.fields.get(name);
      if (value !== undefined) parseInput(shape[name], value);
    }
    const folder = this.fields.get('folder');
    if (folder) {
      if (!(await this.service.repo.findFolder(this.caller.ring.id, folder)))
        throw notFound(RING_FILES_MESSAGES.folderNotFound);
    }
  }

  private declaredSize(): number | undefined {
    const text = this.fields.get('size');
    if (text === undefined || text.trim() === '') return undefined;
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 0) throw badRequest(RING_FILES_MESSAGES.sizeMismatch);
    return n;
  }

  /** Streams the file part into storage; refused past the reservation or if not encrypted. */
  async receive(stream: Readable): Promise<void> {
    if (this.received) {
      stream.resume();
      return;
    }
    this.received = true;
    await this.checkEarlyFields();
    const declared = this.declaredSize();
    const hints: UploadSizeHints =
      declared !== undefined
        ? { declaredBytes: declared }
        : this.contentLength !== undefined
          ? {
              upperBoundBytes: this.contentLength,
              lowerBoundBytes: Math.max(0, this.contentLength - MULTIPART_FIELDS_ALLOWANCE),
            }
          : {};
    if (declared !== undefined && plainFileSize(declared) === undefined)
      throw badRequest(RING_FILES_MESSAGES.notEncrypted);
    const fileId = this.fields.get('file_id');
    this.reservation = await this.service.reserve(this.caller, hints, {
      kind: 'multipart',
      ...(fileId ? { fileId } : {}),
    });
    const limit = this.reservation.row.bytes;
    const storageKey = randomUUID();
    const check = new EncryptedStreamCheck();
    stream.on('error', (error) => check.destroy(error));
    // Bytes may reach the check before storage starts reading it: its error is kept on the stream
    // (`errored`) and rejects the storage write, instead of going unhandled meanwhile.
    check.on('error', () => undefined);
    try {
      const { size } = await this.ctx.storage.put(
        `${this.caller.ring.id}/${storageKey}`,
        stream.pipe(check),
        {
          maxBytes: limit,
        },
      );
      this.stored = { storageKey, size };
    } catch (error) {
      stream.unpipe(check);
      stream.resume();
      throw this.streamError(error);
    }
    // A truncated multipart file stream (its own size limit) must not pass for a whole file.
    if ((stream as Readable & { truncated?: boolean }).truncated)
      throw new AppError(413, uploadRefusal(this.reservation.limitedBy, this.caller.ring.max_file_size_mb));
    if (declared !== undefined && this.stored.size !== declared)
      throw badRequest(RING_FILES_MESSAGES.sizeMismatch);
    if (plainFileSize(this.stored.size) === undefined) throw badRequest(RING_FILES_MESSAGES.notEncrypted);
  }

  private streamError(error: unknown): unknown {
    if (error instanceof StorageLimitError)
      return new AppError(
        413,
        uploadRefusal(this.reservation?.limitedBy ?? 'length', this.caller.ring.max_file_size_mb),
      );
    if (error instanceof NotEncryptedError) return badRequest(RING_FILES_MESSAGES.notEncrypted);
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
      return new AppError(
        413,
        uploadRefusal(this.reservation?.limitedBy ?? 'size', this.caller.ring.max_file_size_mb),
      );
    return error;
  }

  /** Records the file once the whole request was read. */
  async finish(): Promise<TRingFile> {
    if (!this.received || !this.stored || !this.reservation)
      throw badRequest(RING_FILES_MESSAGES.fileMissing);
    const fields = parseInput(ZUploadFields, Object.fromEntries(this.fields));
    if (fields.file_id !== undefined && this.reservation.row.file_id !== fields.file_id) {
      // The id came after the file: it was not checked at reservation time.
      if (await this.service.repo.reservationForFileIdExists(fields.file_id))
        throw conflict(RING_FILES_MESSAGES.fileIdTaken);
    }
    const file = await this.service.commitUpload(this.caller, this.reservation.row, fields, this.stored);
    this.stored = undefined;
    this.reservation = undefined;
    return file;
  }

  /** Undoes a refused or failed upload. */
  async abort(): Promise<void> {
    const { stored, reservation } = this;
    this.stored = undefined;
    this.reservation = undefined;
    if (stored) {
      await this.ctx.storage
        .delete(`${this.caller.ring.id}/${stored.storageKey}`)
        .catch((error: unknown) => this.ctx.logger.error({ err: error }, 'refused upload left in storage'));
    }
    if (reservation) await this.service.release(reservation.row.id);
  }
}
