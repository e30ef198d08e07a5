import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  BACKUP_MESSAGES,
  backupSecretsNotRestoredMessage,
  hasZipExtension,
  isBackupFilename,
  secretSettingLabel,
  type TBackupInfo,
  type TBackupSettingToReenter,
} from '@securering/contract';
import type yazl from 'yazl';
import { loadOnFirstUse } from '../../lib/load-on-first-use';
import type { AppContext } from '../../app-context';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import { ensurePrivateDir } from '../../lib/data-dir';
import { storagePaths } from '../../lib/storage-paths';
import type { AdminRow } from '../admins/admin.repository';
import type { RequestMeta } from '../sessions/session.service';
import { BackupArchive, BackupArchiveError } from './backup-archive';
import { ObjectStorageFiles, type ObjectFileEntry } from './backup-object-files';
import {
  decryptValue,
  deriveBackupKey,
  encryptValue,
  isEnvelope,
  keyCheckOf,
  keyMatches,
  newBackupSalt,
  settingAad,
} from './backup-secrets';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  FILE_ROOTS,
  MANIFEST_ENTRY,
  MESSAGE_SEQUENCE_COLUMNS,
  archivedRow,
  backupFileName,
  checkMigrations,
  classifyEntryName,
  isCredentialTable,
  isSecretSettingRow,
  restoredSecretValue,
  uploadNameCandidates,
  withMessageSequence,
  type BackupManifest,
  type FileRoot,
} from './backup.policy';
import { PUBLIC_PLANS_TOPIC } from '../plans/public-plans';
import { BackupRepository, INSERT_BATCH_ROWS, type Row, type TableShape } from './backup.repository';

/** The zip writer, loaded with the first backup. */
const loadYazl = loadOnFirstUse<typeof yazl>('yazl');

/** An uploaded file as the route hands it over: the client's name and the body stream. */
export interface UploadedBackup {
  filename: string;
  stream: Readable & { truncated?: boolean };
}

const STALE_WORK_MS = 24 * 3600_000;

/** How the secret settings of one export are written: encrypted with `key`, or left out. */
interface SecretExport {
  key: Buffer | undefined;
  /** "category.key" of every secret that was set. */
  keys: string[];
}

/** What a restore can do with the archive's secret settings. */
interface SecretImport {
  /** The archive key when BACKUP_ENCRYPTION_KEY opens the archive's key check. */
  key: Buffer | undefined;
  /** Secrets the backup left out (made without a key). */
  leftOut: Set<string>;
}

export interface RestoreOutcome {
  settingsToReenter: TBackupSettingToReenter[];
}

/**
 * Backups of the whole service: every table exported as JSON lines in one consistent read, plus
 * the Ring files and uploads, zipped under DATA_DIR/backups. A restore checks the whole archive
 * first, replaces every table in one transaction, and swaps the file folders only after it commits.
 */
export class BackupService {
  private readonly repo: BackupRepository;
  private busy = false;

  constructor(private readonly ctx: AppContext) {
    this.repo = new BackupRepository(ctx.db, ctx.database.dialect);
  }

  private get backupsDir(): string {
    return path.resolve(storagePaths.backups(this.ctx.config));
  }

  private get workRoot(): string {
    return path.join(path.resolve(this.ctx.config.dataDir), '.backup-work');
  }

  private liveFolder(root: FileRoot): string {
    return path.resolve(
      root === 'ring-files'
        ? storagePaths.allRingFiles(this.ctx.config)
        : storagePaths.uploads(this.ctx.config),
    );
  }

  private async refused(
    actor: AdminRow,
    meta: RequestMeta,
    error: BackupArchiveError,
    details: Record<string, unknown>,
  ): Promise<never> {
    await this.ctx.systemLog.adminAction(
      actor,
      meta,
      'Archive de sauvegarde refusée',
      { ...details, reason: error.detail },
      'warning',
    );
    throw badRequest(error.publicMessage);
  }

  /** One create or restore at a time in this process; a second one is told to wait. */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy) throw conflict(BACKUP_MESSAGES.busy);
    this.busy = true;
    try {
      await this.removeStaleWork();
      return await work();
    } finally {
      this.busy = false;
    }
  }

  private async newWorkDir(kind: string): Promise<string> {
    const dir = path.join(this.workRoot, `${kind}-${newId()}`);
    await ensurePrivateDir(dir);
    return dir;
  }

  /** Leftovers of a process that stopped mid-operation. */
  private async removeStaleWork(): Promise<void> {
    const entries = await fs.promises.readdir(this.workRoot).catch(() => [] as string[]);
    const now = Date.now();
    for (const name of entries) {
      const full = path.join(this.workRoot, name);
      const stat = await fs.promises.stat(full).catch(() => undefined);
      if (stat && now - stat.mtimeMs > STALE_WORK_MS)
        await fs.promises.rm(full, { recursive: true, force: true });
    }
  }

  private async info(filename: string): Promise<TBackupInfo> {
    const stat = await fs.promises.stat(path.join(this.backupsDir, filename));
    return { filename, date: stat.mtime.toISOString(), size: stat.size };
  }

  /**
   * Archives hold password hashes, provider secrets (encrypted or left out) and the whole data of
   * every customer: downloading or restoring one is for super admins only.
   */
  assertMayHandleContents(actor: AdminRow): void {
    if (actor.role !== 'super_admin') throw forbidden(BACKUP_MESSAGES.superAdminOnly);
  }

  /** The file to send for a download (super admin only). */
  async download(actor: AdminRow, filename: string): Promise<{ file: string; info: TBackupInfo }> {
    this.assertMayHandleContents(actor);
    return this.resolve(filename);
  }

  /** Backups on disk, newest first. */
  async list(): Promise<TBackupInfo[]> {
    await ensurePrivateDir(this.backupsDir);
    const entries = await fs.promises.readdir(this.backupsDir, { withFileTypes: true });
    const backups: TBackupInfo[] = [];
    for (const entry of entries) {
      if (!entry.isFile() || !isBackupFilename(entry.name)) continue;
      const found = await this.info(entry.name).catch(() => undefined);
      if (found) backups.push(found);
    }
    return backups.sort((a, b) => b.date.localeCompare(a.date) || b.filename.localeCompare(a.filename));
  }

  /**
   * The path of an existing backup named in a request: a safe name (no folder, no traversal) that
   * resolves directly inside the backups folder, or 400; a regular file there, or 404.
   */
  async resolve(filename: string): Promise<{ file: string; info: TBackupInfo }> {
    if (!isBackupFilename(filename)) throw badRequest(BACKUP_MESSAGES.invalidFilename);
    const file = path.resolve(this.backupsDir, filename);
    if (path.dirname(file) !== this.backupsDir) throw badRequest(BACKUP_MESSAGES.invalidFilename);
    const stat = await fs.promises.lstat(file).catch(() => undefined);
    if (!stat?.isFile()) throw notFound(BACKUP_MESSAGES.notFound);
    return { file, info: { filename, date: stat.mtime.toISOString(), size: stat.size } };
  }

  /**
   * Moves a finished temporary file to the first free name, never replacing an existing backup
   * (a hard link fails when the name is taken).
   */
  private async place(temp: string, candidates: string[]): Promise<string> {
    for (const name of candidates) {
      const target = path.join(this.backupsDir, name);
      try {
        await fs.promises.link(temp, target);
        await fs.promises.unlink(temp);
        return name;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') continue;
        // File systems without hard links: rename when the name is free.
        if (
          await fs.promises.stat(target).then(
            () => true,
            () => false,
          )
        )
          continue;
        await fs.promises.rename(temp, target);
        return name;
      }
    }
    throw conflict(BACKUP_MESSAGES.busy);
  }

  async create(actor: AdminRow, meta: RequestMeta): Promise<TBackupInfo> {
    const created = await this.exclusive(async () => {
      await ensurePrivateDir(this.backupsDir);
      const work = await this.newWorkDir('create');
      const temp = path.join(this.backupsDir, `.create-${newId()}.part`);
      try {
        const createdAt = this.ctx.clock.now();
        const passphrase = this.ctx.config.backupEncryptionKey;
        const salt = newBackupSalt();
        const secrets: SecretExport = {
          key: passphrase ? await deriveBackupKey(passphrase, salt) : undefined,
          keys: [],
        };
        const exported = await this.exportDatabase(path.join(work, 'db'), secrets);
        const files = await this.collectFiles();
        const manifest: BackupManifest = {
          format: BACKUP_FORMAT,
          version: BACKUP_FORMAT_VERSION,
          created_at: createdAt.toISOString(),
          app_version: this.ctx.config.version,
          dialect: this.ctx.database.dialect,
          migrations: exported.migrations,
          tables: exported.tables,
          files: files.length,
          secrets: secrets.key
            ? {
                encryption: 'aes-256-gcm',
                kdf: 'scrypt',
                salt: salt.toString('base64'),
                check: keyCheckOf(secrets.key),
                keys: secrets.keys,
              }
            : { encryption: 'none', keys: secrets.keys },
        };
        const zip = new (loadYazl().ZipFile)();
        zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 2)), MANIFEST_ENTRY);
        for (const table of Object.keys(exported.tables)) {
          zip.addFile(path.join(work, 'db', `${table}.jsonl`), `db/${table}.jsonl`);
        }
        // Ring files are encrypted and images are compressed already: stored as they are.
        for (const file of files) {
          if ('absolute' in file) zip.addFile(file.absolute, file.name, { compress: false });
          else {
            // From object storage: each object is opened only when the zip reaches it.
            zip.addReadStreamLazy(file.name, { compress: false, size: file.size }, (callback) => {
              this.ctx.storage.get(file.objectKey).then(
                (stream) => callback(null, stream),
                (error: unknown) => callback(error, undefined as never),
              );
            });
          }
        }
        zip.end();
        await pipeline(zip.outputStream, fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
        const filename = await this.place(
          temp,
          Array.from({ length: 50 }, (_, attempt) => backupFileName(createdAt, 'securering-backup', attempt)),
        );
        return {
          info: await this.info(filename),
          tables: exported.tables,
          files: files.length,
          secrets: { encrypted: secrets.key !== undefined, count: secrets.keys.length },
        };
      } finally {
        await fs.promises.rm(work, { recursive: true, force: true });
        await fs.promises.rm(temp, { force: true });
      }
    });
    await this.ctx.systemLog.adminAction(actor, meta, 'Sauvegarde créée', {
      filename: created.info.filename,
      size: created.info.size,
      rows: Object.values(created.tables).reduce((sum, n) => sum + n, 0),
      files: created.files,
      secrets: created.secrets,
    });
    return created.info;
  }

  /**
   * Writes every table to `<dir>/<table>.jsonl` within one read transaction (a snapshot on
   * PostgreSQL), so the export is consistent across tables; rows are read by pages. Credential
   * tables are written empty, finished mails without bodies (archivedRow), secret settings
   * encrypted or emptied (`secrets`).
   */
  private async exportDatabase(
    dir: string,
    secrets: SecretExport,
  ): Promise<{ migrations: string[]; tables: Record<string, number> }> {
    await ensurePrivateDir(dir);
    const migrations = await this.repo.appliedMigrations();
    const nowIso = this.ctx.clock.now().toISOString();
    const builder = this.ctx.db.transaction();
    const transaction =
      this.ctx.database.dialect === 'postgres' ? builder.setIsolationLevel('repeatable read') : builder;
    const tables = await transaction.execute(async (trx) => {
      const counts: Record<string, number> = {};
      for (const shape of await this.repo.tablesInDependencyOrder(trx)) {
        const out = fs.createWriteStream(path.join(dir, `${shape.name}.jsonl`), { flags: 'wx', mode: 0o600 });
        let count = 0;
        try {
          const pages = isCredentialTable(shape.name) ? [] : this.repo.pages(trx, shape);
          for await (const page of pages) {
            const rows = page
              .map((row) => archivedRow(shape.name, row, nowIso))
              .filter((row): row is Row => row !== undefined)
              .map((row) => (shape.name === 'settings' ? archivedSetting(row, secrets) : row));
            const chunk = rows.map((row) => `${JSON.stringify(row)}\n`).join('');
            count += rows.length;
            if (!out.write(chunk)) await once(out, 'drain');
          }
        } finally {
          out.end();
          await once(out, 'close');
        }
        counts[shape.name] = count;
      }
      return counts;
    });
    return { migrations, tables };
  }

  /** Ring files kept outside DATA_DIR (object storage), or undefined when they live in DATA_DIR. */
  private get objectFiles(): ObjectStorageFiles | undefined {
    return this.ctx.storage.insideDataDir
      ? undefined
      : new ObjectStorageFiles(this.ctx.storage, this.ctx.logger);
  }

  /**
   * Every regular file under the Ring files and uploads folders, with its name in the archive;
   * Ring files in object storage are listed from the bucket under the same names.
   */
  private async collectFiles(): Promise<Array<{ absolute: string; name: string } | ObjectFileEntry>> {
    const found: Array<{ absolute: string; name: string } | ObjectFileEntry> = [];
    const objectFiles = this.objectFiles;
    for (const root of FILE_ROOTS) {
      if (root === 'ring-files' && objectFiles) {
        found.push(...(await objectFiles.collect()));
        continue;
      }
      const base = this.liveFolder(root);
      const walk = async (dir: string, relative: string[]): Promise<void> => {
        const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const entry of entries) {
          const parts = [...relative, entry.name];
          if (entry.isDirectory()) await walk(path.join(dir, entry.name), parts);
          else if (entry.isFile()) {
            const name = `files/${root}/${parts.join('/')}`;
            // A name a restore would refuse is left out rather than making the whole backup unusable.
            if (classifyEntryName(name).kind !== 'file') {
              this.ctx.logger.warn({ name }, 'backup: file name left out of the archive');
              continue;
            }
            found.push({ absolute: path.join(dir, entry.name), name });
          }
          // Links and special files are never followed.
        }
      };
      await walk(base, []);
    }
    return found;
  }

  async upload(actor: AdminRow, meta: RequestMeta, upload: UploadedBackup): Promise<TBackupInfo> {
    if (!hasZipExtension(upload.filename)) {
      upload.stream.resume();
      throw badRequest(BACKUP_MESSAGES.zipOnly);
    }
    await ensurePrivateDir(this.backupsDir);
    const temp = path.join(this.backupsDir, `.upload-${newId()}.part`);
    let filename: string;
    try {
      try {
        await pipeline(upload.stream, fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
          throw new AppError(413, BACKUP_MESSAGES.tooLarge);
        throw error;
      }
      if (upload.stream.truncated) throw new AppError(413, BACKUP_MESSAGES.tooLarge);
      try {
        (await BackupArchive.open(temp)).close();
      } catch (error) {
        if (error instanceof BackupArchiveError)
          await this.refused(actor, meta, error, {
            action: 'upload',
            original_name: upload.filename.slice(0, 200),
          });
        throw error;
      }
      filename = await this.place(temp, uploadNameCandidates(upload.filename, this.ctx.clock.now()));
    } finally {
      await fs.promises.rm(temp, { force: true });
    }
    const info = await this.info(filename);
    await this.ctx.systemLog.adminAction(actor, meta, 'Sauvegarde envoyée', {
      filename,
      size: info.size,
      original_name: upload.filename.slice(0, 200),
    });
    return info;
  }

  async remove(actor: AdminRow, meta: RequestMeta, filename: string): Promise<void> {
    const { file, info } = await this.resolve(filename);
    await fs.promises.unlink(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw notFound(BACKUP_MESSAGES.notFound);
      throw error;
    });
    await this.ctx.systemLog.adminAction(actor, meta, 'Sauvegarde supprimée', { filename, size: info.size });
  }

  /**
   * Replaces the whole database and the file folders with the backup's. All-or-nothing: the
   * archive is checked in full first (and the free disk space against its uncompressed size),
   * files are extracted aside, the tables are replaced in one transaction, and the folders are
   * swapped only once it has committed. Every session ends (the caller's too) and every socket is
   * closed; secret settings the archive cannot give back keep their current values and are listed.
   */
  async restore(actor: AdminRow, meta: RequestMeta, filename: string): Promise<RestoreOutcome> {
    this.assertMayHandleContents(actor);
    const { file } = await this.resolve(filename);
    const summary = await this.exclusive(async () => {
      let archive: BackupArchive;
      try {
        archive = await BackupArchive.open(file);
      } catch (error) {
        if (error instanceof BackupArchiveError)
          await this.refused(actor, meta, error, { action: 'restore', filename });
        throw error;
      }
      let work: string | undefined;
      try {
        const plan = await this.checkRestorable(archive).catch(async (error: unknown) => {
          if (error instanceof BackupArchiveError)
            await this.refused(actor, meta, error, { action: 'restore', filename });
          throw error;
        });
        await this.assertFreeSpace(archive.uncompressedBytes).catch(async (error: unknown) => {
          if (error instanceof BackupArchiveError)
            await this.refused(actor, meta, error, { action: 'restore', filename });
          throw error;
        });
        const secrets = await this.openSecrets(archive.manifest);
        const reenter: TBackupSettingToReenter[] = [];
        work = await this.newWorkDir('restore');
        const staged = path.join(work, 'new');
        const files = await archive.extractFiles(staged).catch(async (error: unknown) => {
          if (error instanceof BackupArchiveError)
            await this.refused(actor, meta, error, { action: 'restore', filename });
          throw error;
        });
        // Ring files in object storage go into the bucket before the database changes.
        const objectFiles = this.objectFiles;
        const pushed = objectFiles ? await objectFiles.push(path.join(staged, 'ring-files')) : undefined;

        try {
          await this.ctx.db.transaction().execute(async (trx) => {
            await this.repo.lockForRestore(
              trx,
              plan.tables.map((t) => t.name),
            );
            const currentSecrets = new Map(
              (await this.repo.settingsRows(trx))
                .filter(isSecretSettingRow)
                .map((row) => [`${row.category}.${row.key}`, row.setting_value]),
            );
            for (const table of [...plan.tables].reverse()) await this.repo.deleteAll(trx, table.name);
            const nowIso = this.ctx.clock.now().toISOString();
            const messageCounters = new Map<string, number>();
            for (const table of plan.tables) {
              let columns = plan.columns.get(table.name);
              // Credential tables stay empty: every session and customer token ends here.
              if (!columns || isCredentialTable(table.name)) continue;
              // An archive from before message sequences: its messages are numbered on the way in.
              const sequenceMessages = table.name === 'messages' && !columns.includes('seq');
              if (sequenceMessages) columns = [...columns, ...MESSAGE_SEQUENCE_COLUMNS];
              let batch: Row[] = [];
              for await (const archived of archive.rows(table.name)) {
                let row = archivedRow(table.name, archived, nowIso);
                if (!row) continue;
                if (sequenceMessages) row = withMessageSequence(row, messageCounters);
                if (table.name === 'settings' && isSecretSettingRow(row)) {
                  const name = `${String(row.category)}.${String(row.key)}`;
                  const value = String(row.setting_value ?? '');
                  const envelope = isEnvelope(value);
                  const outcome = restoredSecretValue({
                    archived: value,
                    leftOut: secrets.leftOut.has(name),
                    isEnvelope: envelope,
                    decrypted:
                      envelope && secrets.key
                        ? decryptValue(secrets.key, settingAad(String(row.category), String(row.key)), value)
                        : undefined,
                    current: currentSecrets.get(name),
                  });
                  row = { ...row, setting_value: outcome.value };
                  if (outcome.reenter) {
                    const [category = '', key = ''] = name.split('.');
                    reenter.push({ category, key, label: secretSettingLabel(category, key) });
                  }
                }
                batch.push(row);
                if (batch.length >= INSERT_BATCH_ROWS) {
                  await this.repo.insertRows(trx, table.name, columns, batch);
                  batch = [];
                }
              }
              await this.repo.insertRows(trx, table.name, columns, batch);
            }
            // Each conversation's counter continues after its last restored message.
            await this.repo.resyncConversationSequences(trx);
          });
        } catch (error) {
          // Rolled back: the database is as it was, the staged files are dropped below.
          if (objectFiles && pushed) await objectFiles.dropAdded(pushed.added);
          await this.ctx.systemLog.adminAction(
            actor,
            meta,
            'Échec de la restauration d’une sauvegarde',
            { filename, error: (error as Error).message?.slice(0, 500) },
            'error',
          );
          if (error instanceof BackupArchiveError) throw badRequest(error.publicMessage);
          if (isDataError(error)) throw badRequest(BACKUP_MESSAGES.inconsistent);
          throw new AppError(500, BACKUP_MESSAGES.restoreFailed);
        }

        try {
          await this.swapFolders(staged, path.join(work, 'old'), objectFiles ? ['uploads'] : FILE_ROOTS);
          if (objectFiles && pushed) await objectFiles.dropOthers(pushed.restored);
        } catch (error) {
          this.ctx.logger.error({ err: error }, 'backup: restored database but could not swap file folders');
          await this.ctx.systemLog.adminAction(
            actor,
            meta,
            'Sauvegarde restaurée sans ses fichiers',
            { filename, error: (error as Error).message?.slice(0, 500) },
            'error',
          );
          throw new AppError(500, BACKUP_MESSAGES.filesNotSwapped);
        }
        return {
          rows: Object.values(archive.manifest.tables).reduce((sum, n) => sum + n, 0),
          files,
          created_at: archive.manifest.created_at,
          reenter,
        };
      } finally {
        archive.close();
        if (work) await fs.promises.rm(work, { recursive: true, force: true });
      }
    });
    // The sessions table was emptied: sockets opened with them are closed too, on every instance.
    this.ctx.realtime.server?.disconnectSockets(true);
    // Cached answers built from the old rows are stale on every instance.
    this.ctx.realtime.invalidate(PUBLIC_PLANS_TOPIC);
    // Written after the commit, so the entry stays next to the restored log.
    await this.ctx.systemLog.adminAction(actor, meta, 'Sauvegarde restaurée', {
      filename,
      backup_created_at: summary.created_at,
      rows: summary.rows,
      files: summary.files,
      sessions_ended: true,
      settings_to_reenter: summary.reenter.map((s) => `${s.category}.${s.key}`),
    });
    return { settingsToReenter: summary.reenter };
  }

  /** The restore's answer message. */
  static restoredMessage(outcome: RestoreOutcome): string {
    return outcome.settingsToReenter.length > 0
      ? backupSecretsNotRestoredMessage(outcome.settingsToReenter.map((s) => s.label))
      : BACKUP_MESSAGES.restored;
  }

  /**
   * Refuses a restore the disk could not hold: the files are extracted next to the live ones and
   * the rows written to the database, so the archive's whole uncompressed size must be free.
   */
  private async assertFreeSpace(needed: number): Promise<void> {
    const stats = await fs.promises.statfs(path.resolve(this.ctx.config.dataDir));
    const free = Number(stats.bavail) * Number(stats.bsize);
    if (free < needed)
      throw new BackupArchiveError(BACKUP_MESSAGES.notEnoughSpace, `needs ${needed} bytes, ${free} free`);
  }

  /** The archive key, when the archive's secrets are encrypted and BACKUP_ENCRYPTION_KEY opens them. */
  private async openSecrets(manifest: BackupManifest): Promise<SecretImport> {
    const info = manifest.secrets;
    const leftOut = new Set(info?.encryption === 'none' ? info.keys : []);
    const passphrase = this.ctx.config.backupEncryptionKey;
    if (info?.encryption !== 'aes-256-gcm' || !info.salt || !passphrase) return { key: undefined, leftOut };
    const key = await deriveBackupKey(passphrase, Buffer.from(info.salt, 'base64'));
    if (info.check && !keyMatches(key, info.check)) return { key: undefined, leftOut };
    return { key, leftOut };
  }

  /**
   * Everything that can be checked before a write: the backup's migrations against the live ones,
   * its tables and columns against the live schema, and every row of every table file.
   */
  private async checkRestorable(
    archive: BackupArchive,
  ): Promise<{ tables: TableShape[]; columns: Map<string, string[]> }> {
    const { manifest } = archive;
    const current = await this.repo.appliedMigrations();
    const compatibility = checkMigrations(manifest.migrations, current);
    if (compatibility === 'newer') throw badRequest(BACKUP_MESSAGES.newerVersion);
    if (compatibility === 'mismatch')
      throw new BackupArchiveError(BACKUP_MESSAGES.notSecureRing, 'migrations do not match');
    const tables = await this.repo.tablesInDependencyOrder();
    const live = new Map(tables.map((t) => [t.name, t]));
    for (const name of Object.keys(manifest.tables)) {
      if (!live.has(name))
        throw new BackupArchiveError(BACKUP_MESSAGES.notSecureRing, `unknown table ${name}`);
    }
    // Same schema version: the backup must carry every table. An older one may lack later tables.
    if (manifest.migrations.length === current.length) {
      for (const table of tables) {
        if (!(table.name in manifest.tables))
          throw new BackupArchiveError(BACKUP_MESSAGES.notSecureRing, `missing table ${table.name}`);
      }
    }
    const columns = new Map<string, string[]>();
    for (const table of tables) {
      const expected = manifest.tables[table.name];
      if (expected === undefined) continue;
      const known = new Set(table.columns);
      let first: string[] | undefined;
      let firstKey = '';
      let count = 0;
      for await (const row of archive.rows(table.name)) {
        const keys = Object.keys(row);
        if (!first) {
          first = keys;
          firstKey = [...keys].sort().join(',');
          const unknown = keys.find((k) => !known.has(k));
          if (unknown)
            throw new BackupArchiveError(
              BACKUP_MESSAGES.unreadableData,
              `${table.name}: unknown column ${unknown}`,
            );
        } else if ([...keys].sort().join(',') !== firstKey) {
          throw new BackupArchiveError(
            BACKUP_MESSAGES.unreadableData,
            `${table.name}: rows with different columns`,
          );
        }
        count++;
      }
      if (count !== expected) {
        throw new BackupArchiveError(
          BACKUP_MESSAGES.unreadableData,
          `${table.name}: ${count} rows, manifest says ${expected}`,
        );
      }
      columns.set(table.name, first ?? []);
    }
    return { tables, columns };
  }

  /**
   * Puts the restored folders in place of the live ones: each live folder is moved aside, the
   * restored one moved in, and the old one removed with the work folder. A folder that cannot be
   * renamed (a mount point) has its content replaced instead.
   */
  private async swapFolders(staged: string, aside: string, roots: readonly FileRoot[]): Promise<void> {
    await ensurePrivateDir(aside);
    for (const root of roots) {
      const live = this.liveFolder(root);
      const restored = path.join(staged, root);
      await ensurePrivateDir(path.dirname(live));
      try {
        const exists = await fs.promises.lstat(live).then(
          () => true,
          () => false,
        );
        if (exists) await fs.promises.rename(live, path.join(aside, root));
        await fs.promises.rename(restored, live);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EXDEV' && code !== 'EBUSY' && code !== 'EPERM') throw error;
        await ensurePrivateDir(live);
        for (const child of await fs.promises.readdir(live))
          await fs.promises.rm(path.join(live, child), { recursive: true, force: true });
        await fs.promises.cp(restored, live, { recursive: true });
      }
    }
  }
}

/** A settings row as a backup keeps it: a set secret encrypted with the archive key, or emptied. */
function archivedSetting(row: Row, secrets: SecretExport): Row {
  if (!isSecretSettingRow(row)) return row;
  const value = String(row.setting_value ?? '');
  if (value === '') return row;
  const category = String(row.category);
  const key = String(row.key);
  secrets.keys.push(`${category}.${key}`);
  return {
    ...row,
    setting_value: secrets.key ? encryptValue(secrets.key, settingAad(category, key), value) : '',
  };
}

/** A row the database refuses (constraint, type): the archive's data, not the server, is at fault. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH' || /^2[23][0-9A-Z]{3}$/.test(code)
  );
}
