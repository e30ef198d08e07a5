import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { BACKUP_MESSAGES } from '@securering/contract';
import type yauzl from 'yauzl';
import { loadOnFirstUse } from '../../lib/load-on-first-use';
import { ensurePrivateDir } from '../../lib/data-dir';
import {
  BACKUP_LIMITS,
  ZBackupManifest,
  classifyEntryName,
  isPlainValue,
  isSpecialEntry,
  type BackupManifest,
  type FileRoot,
} from './backup.policy';

/** The zip reader, loaded with the first archive opened. */
const loadYauzl = loadOnFirstUse<typeof yauzl>('yauzl');

/** Why an archive is refused: a French message for the caller and a technical detail for the log. */
export class BackupArchiveError extends Error {
  constructor(
    readonly publicMessage: string,
    readonly detail: string,
  ) {
    super(`${publicMessage} (${detail})`);
    this.name = 'BackupArchiveError';
  }
}

const notSecureRing = (detail: string) => new BackupArchiveError(BACKUP_MESSAGES.notSecureRing, detail);
const unsafe = (detail: string) => new BackupArchiveError(BACKUP_MESSAGES.unsafePath, detail);
const unreadable = (detail: string) => new BackupArchiveError(BACKUP_MESSAGES.unreadableData, detail);

export interface ArchiveLimits {
  maxEntries: number;
  maxUncompressedBytes: number;
}

/**
 * Passes bytes through until more than `max` have come: then fails the stream, so an entry that
 * inflates beyond its declared size is stopped as it inflates, whatever the zip claims.
 */
class ByteLimit extends Transform {
  private seen = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max) callback(new Error(`entry inflates beyond its declared ${this.max} bytes`));
    else callback(null, chunk);
  }
}

const MAX_MANIFEST_BYTES = 1024 * 1024;
/** One row of a table file may not exceed this (it is held in memory while parsed). */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
const ZIP_LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export interface ArchiveFile {
  root: FileRoot;
  /** Path below the root, '/'-separated, already checked. */
  relative: string;
  entry: yauzl.Entry;
}

/** Reads one zip's raw name: UTF-8 when flagged (yazl always does), Latin-1 otherwise. */
function entryName(entry: yauzl.Entry): string {
  const raw = entry.fileNameRaw;
  return (entry.generalPurposeBitFlag & 0x800) !== 0 ? raw.toString('utf8') : raw.toString('latin1');
}

/**
 * A SecureRing backup opened for reading. `open` checks the whole central directory and the
 * manifest before anything is read or written: a zip whose entries could escape their folder, or
 * that is not a SecureRing backup, is refused here.
 */
export class BackupArchive {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    readonly manifest: BackupManifest,
    readonly tables: Map<string, yauzl.Entry>,
    readonly files: ArchiveFile[],
    /** Sum of the declared uncompressed sizes of every entry (checked against the limit). */
    readonly uncompressedBytes: number,
  ) {}

  /**
   * Opens and checks an archive. The entry count and the sum of the declared uncompressed sizes
   * are capped here, before a byte is inflated; every read is then held to its entry's declared size.
   */
  static async open(file: string, limits: ArchiveLimits = BACKUP_LIMITS): Promise<BackupArchive> {
    const head = Buffer.alloc(4);
    const handle = await fs.promises.open(file, 'r');
    try {
      const { bytesRead } = await handle.read(head, 0, 4, 0);
      if (bytesRead < 4 || !head.equals(ZIP_LOCAL_HEADER)) throw notSecureRing('not a zip file');
    } finally {
      await handle.close();
    }

    let zip: yauzl.ZipFile;
    try {
      zip = await loadYauzl().openPromise(file, {
        lazyEntries: true,
        autoClose: false,
        // Names are read raw and checked by classifyEntryName: yauzl would silently turn '\' into '/'.
        decodeStrings: false,
        validateEntrySizes: true,
      });
    } catch (error) {
      throw notSecureRing(`unreadable zip: ${(error as Error).message}`);
    }
    // Errors after the directory walk are reported through the read streams; never let one crash the process.
    zip.on('error', () => undefined);

    try {
      const seen = new Set<string>();
      const tables = new Map<string, yauzl.Entry>();
      const files: ArchiveFile[] = [];
      let manifestEntry: yauzl.Entry | undefined;
      let unexpected: string | undefined;
      let uncompressedBytes = 0;
      if (zip.entryCount > limits.maxEntries)
        throw new BackupArchiveError(BACKUP_MESSAGES.tooManyEntries, `too many entries: ${zip.entryCount}`);
      try {
        for await (const entry of zip.eachEntry()) {
          uncompressedBytes += entry.uncompressedSize;
          if (uncompressedBytes > limits.maxUncompressedBytes)
            throw new BackupArchiveError(
              BACKUP_MESSAGES.tooLargeUncompressed,
              `declared uncompressed size over ${limits.maxUncompressedBytes} bytes`,
            );
          const name = entryName(entry);
          const kind = classifyEntryName(name);
          if (kind.kind === 'unsafe') throw unsafe(`${kind.reason}: ${JSON.stringify(name)}`);
          if (kind.kind === 'unexpected') unexpected ??= `${kind.reason}: ${JSON.stringify(name)}`;
          if (isSpecialEntry(entry.externalFileAttributes, entry.versionMadeBy)) {
            throw unsafe(`link or special file: ${JSON.stringify(name)}`);
          }
          // An Info-ZIP Unicode path field would give other tools another name than the one checked.
          if (entry.extraFields.some((field) => field.id === 0x7075))
            throw unsafe(`alternate name: ${JSON.stringify(name)}`);
          const key = name.endsWith('/') ? name.slice(0, -1) : name;
          if (seen.has(key)) throw unsafe(`duplicate entry: ${JSON.stringify(name)}`);
          seen.add(key);
          if (entry.isEncrypted()) throw notSecureRing(`encrypted entry: ${name}`);
          if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
            throw notSecureRing(`unsupported compression ${entry.compressionMethod}: ${name}`);
          }
          if (kind.kind === 'manifest') manifestEntry = entry;
          else if (kind.kind === 'table') tables.set(kind.table, entry);
          else if (kind.kind === 'file') files.push({ root: kind.root, relative: kind.relative, entry });
        }
      } catch (error) {
        if (error instanceof BackupArchiveError) throw error;
        throw notSecureRing(`unreadable zip: ${(error as Error).message}`);
      }
      // A file may not sit where another entry needs a folder ('a/b' as a file and 'a/b/c').
      const filePaths = new Set(files.map((f) => `${f.root}/${f.relative}`));
      for (const file of files) {
        const parts = file.relative.split('/');
        for (let i = 1; i < parts.length; i++) {
          const prefix = `${file.root}/${parts.slice(0, i).join('/')}`;
          if (filePaths.has(prefix)) throw unsafe(`file used as a folder: files/${prefix}`);
        }
      }

      if (!manifestEntry) throw notSecureRing('no manifest.json');
      if (unexpected) throw unsafe(unexpected);
      if (manifestEntry.uncompressedSize > MAX_MANIFEST_BYTES) throw notSecureRing('manifest too large');
      let manifest: BackupManifest;
      try {
        const text = await readAll(await openLimited(zip, manifestEntry));
        const parsed = ZBackupManifest.safeParse(JSON.parse(text));
        if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'manifest');
        manifest = parsed.data;
      } catch (error) {
        throw notSecureRing(`bad manifest: ${(error as Error).message}`);
      }
      for (const table of Object.keys(manifest.tables)) {
        if (!tables.has(table)) throw notSecureRing(`missing db/${table}.jsonl`);
      }
      for (const table of tables.keys()) {
        if (!(table in manifest.tables)) throw notSecureRing(`db/${table}.jsonl not in the manifest`);
      }
      return new BackupArchive(zip, manifest, tables, files, uncompressedBytes);
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  /**
   * The rows of one table file, parsed one line at a time. Every row must be a flat JSON object of
   * plain values (text, number, null); otherwise the archive is unreadable.
   */
  async *rows(table: string): AsyncGenerator<Record<string, unknown>> {
    const entry = this.tables.get(table);
    if (!entry) throw notSecureRing(`missing db/${table}.jsonl`);
    let stream: Readable;
    try {
      stream = await openLimited(this.zip, entry);
    } catch (error) {
      throw unreadable(`${table}: ${(error as Error).message}`);
    }
    let lineNumber = 0;
    try {
      for await (const line of lines(stream)) {
        lineNumber++;
        if (line.trim() === '') continue;
        let row: unknown;
        try {
          row = JSON.parse(line);
        } catch {
          throw unreadable(`${table} line ${lineNumber}: invalid JSON`);
        }
        if (!row || typeof row !== 'object' || Array.isArray(row))
          throw unreadable(`${table} line ${lineNumber}: not an object`);
        for (const [column, value] of Object.entries(row)) {
          if (!isPlainValue(value)) throw unreadable(`${table} line ${lineNumber}: bad value in ${column}`);
        }
        yield row as Record<string, unknown>;
      }
    } catch (error) {
      stream.destroy();
      if (error instanceof BackupArchiveError) throw error;
      throw unreadable(`${table}: ${(error as Error).message}`);
    }
  }

  /** Writes every file entry below `target/<root>/`, refusing any path that would leave it. */
  async extractFiles(target: string): Promise<number> {
    const root = path.resolve(target);
    for (const name of ['ring-files', 'uploads']) await ensurePrivateDir(path.join(root, name));
    let count = 0;
    for (const file of this.files) {
      const destination = path.resolve(root, file.root, ...file.relative.split('/'));
      const base = path.join(root, file.root) + path.sep;
      if (!destination.startsWith(base)) throw unsafe(`escapes its folder: ${file.relative}`);
      await ensurePrivateDir(path.dirname(destination));
      try {
        const stream = await this.zip.openReadStreamPromise(file.entry);
        await pipeline(
          stream,
          new ByteLimit(file.entry.uncompressedSize),
          fs.createWriteStream(destination, { flags: 'wx', mode: 0o600 }),
        );
      } catch (error) {
        throw unreadable(`${file.root}/${file.relative}: ${(error as Error).message}`);
      }
      count++;
    }
    return count;
  }

  close(): void {
    this.zip.close();
  }
}

/** An entry's inflated bytes, failing as soon as they exceed its declared size. */
async function openLimited(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  const raw = await zip.openReadStreamPromise(entry);
  const limited = new ByteLimit(entry.uncompressedSize);
  raw.on('error', (error) => limited.destroy(error));
  // A reader that stops early (an invalid row) destroys the limited stream: stop inflating too.
  limited.on('close', () => raw.destroy());
  return raw.pipe(limited);
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Splits a stream into '\n'-separated lines (UTF-8), propagating the stream's errors. */
export async function* lines(stream: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of stream) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (!text.includes('\n')) {
      pending += text;
      if (pending.length > MAX_LINE_CHARS) throw new Error('line too long');
      continue;
    }
    const parts = (pending + text).split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) yield part.replace(/\r$/, '');
  }
  pending += decoder.end();
  if (pending.length > 0) yield pending.replace(/\r$/, '');
}
