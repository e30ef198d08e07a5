import { getSettingDefinition, isBackupFilename } from '@securering/contract';
import { z } from 'zod';

/** Pure rules of the backup format: entry names, manifest, table order, compatibility, file names. */

export const BACKUP_FORMAT = 'securering-backup';
/**
 * 2: sessions and customer tokens are left out, finished mails without their bodies, secret
 * settings encrypted or left out (manifest `secrets`). Version 1 archives still restore.
 */
export const BACKUP_FORMAT_VERSION = 2;

/**
 * Caps checked on the central directory before anything is extracted (zip bombs), and enforced
 * again while inflating, since declared sizes can lie.
 */
export const BACKUP_LIMITS = {
  maxEntries: 1_000_000,
  /** Sum of the declared uncompressed sizes of every entry: 64 GiB. */
  maxUncompressedBytes: 64 * 1024 ** 3,
} as const;

/**
 * Tables of live credentials: never exported, and a restore never brings rows back into them. The
 * VAPID key pair and the push subscriptions (Web Push) are among them: after a restore the server
 * makes a new pair and the members' devices subscribe again when they open the room.
 */
export const CREDENTIAL_TABLES = [
  'sessions',
  'customer_tokens',
  'ring_member_tokens',
  'web_push_keys',
  'push_subscriptions',
] as const;

/** Outbox statuses of mails already handled: their bodies (links included) are not kept. */
export const FINISHED_MAIL_STATUSES = ['sent', 'logged', 'failed'] as const;

export const isCredentialTable = (table: string): boolean =>
  (CREDENTIAL_TABLES as readonly string[]).includes(table);

/**
 * Tables of work in progress: quota reserved by uploads under way, whose partial bytes no backup
 * holds; who has read which ephemeral message (its rows may name messages the backup drops as
 * expired; a restored message keeps its deletion time, at most 7 days after sending). Exported
 * empty and never restored.
 */
export const TRANSIENT_TABLES = ['ring_upload_reservations', 'message_reads'] as const;

export const isTransientTable = (table: string): boolean =>
  (TRANSIENT_TABLES as readonly string[]).includes(table);

/** An ephemeral message whose expiry has passed: it is never served again, nor kept by a backup. */
export function isExpiredMessageRow(row: Record<string, unknown>, nowIso: string): boolean {
  return (
    (row.is_ephemeral === 1 || row.is_ephemeral === '1') &&
    typeof row.expires_at === 'string' &&
    row.expires_at <= nowIso
  );
}

/**
 * A row as a backup holds it, or undefined when it is left out: credential tables are empty,
 * expired ephemeral messages are dropped (the job deleting them may not have run yet), and a
 * finished mail keeps its addressee, subject and status but not its bodies (they may hold reset
 * or verification links). Applied when exporting and again when restoring (`nowIso` is the time
 * of either), so an older or hand-made archive cannot bring those back either. Secret settings
 * are handled apart (they may be kept encrypted).
 */
export function archivedRow<R extends Record<string, unknown>>(
  table: string,
  row: R,
  nowIso: string,
): R | undefined {
  if (isCredentialTable(table) || isTransientTable(table)) return undefined;
  if (table === 'messages' && isExpiredMessageRow(row, nowIso)) return undefined;
  if (
    table === 'email_outbox' &&
    (FINISHED_MAIL_STATUSES as readonly unknown[]).includes(row.status) &&
    (row.body_html !== '' || row.body_text !== '')
  ) {
    return { ...row, body_html: '', body_text: '' };
  }
  return row;
}

/** Columns that messages gained with per-conversation sequences (migration 20261124-002). */
export const MESSAGE_SEQUENCE_COLUMNS = ['seq', 'client_message_id', 'epoch'] as const;

/**
 * Messages of an archive made before sequences existed get them on restore, as the migration
 * gave them to live rows: numbered per conversation in archive order (by id, which is
 * time-ordered), their id as client message id, epoch 0. `counters` carries the last number given
 * per conversation across batches. Rows that have a sequence are returned unchanged.
 */
export function withMessageSequence(
  row: Record<string, unknown>,
  counters: Map<string, number>,
): Record<string, unknown> {
  if ('seq' in row) return row;
  const conversation = String(row.conversation_id);
  const seq = (counters.get(conversation) ?? 0) + 1;
  counters.set(conversation, seq);
  return { ...row, seq, client_message_id: row.id, epoch: 0 };
}

/** True for a settings row whose key is a `secret` setting (SETTING_DEFINITIONS). */
export function isSecretSettingRow(row: Record<string, unknown>): boolean {
  return (
    typeof row.category === 'string' &&
    typeof row.key === 'string' &&
    getSettingDefinition(row.category, row.key)?.visibility === 'secret'
  );
}

/**
 * What a restore writes for one secret setting of the archive:
 * - an encrypted value the key opens → that value;
 * - an encrypted value it does not open (no key, another key), or a secret the backup left out
 *   (listed in the manifest, empty in the archive) → the current value stays, to be re-entered;
 * - anything else (an empty secret, or a version 1 archive's plain value) → as archived.
 */
export function restoredSecretValue(input: {
  archived: string;
  leftOut: boolean;
  isEnvelope: boolean;
  decrypted: string | undefined;
  current: string | undefined;
}): { value: string; reenter: boolean } {
  if (input.isEnvelope) {
    return input.decrypted !== undefined
      ? { value: input.decrypted, reenter: false }
      : { value: input.current ?? '', reenter: true };
  }
  if (input.leftOut && input.archived === '') return { value: input.current ?? '', reenter: true };
  return { value: input.archived, reenter: false };
}
export const MANIFEST_ENTRY = 'manifest.json';
/** The file folders under DATA_DIR a backup carries, by their name inside `files/`. */
export const FILE_ROOTS = ['ring-files', 'uploads'] as const;
export type FileRoot = (typeof FILE_ROOTS)[number];
/** Kysely's own bookkeeping: never exported nor touched by a restore. */
export const MIGRATION_TABLES = ['kysely_migration', 'kysely_migration_lock'] as const;

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const SETTING_NAME = /^[a-z_]{1,40}\.[a-z_]{1,60}$/;

export const ZBackupManifest = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.union([z.literal(1), z.literal(BACKUP_FORMAT_VERSION)]),
  created_at: z.string().max(64),
  app_version: z.string().max(64),
  dialect: z.enum(['sqlite', 'postgres']),
  migrations: z.array(z.string().min(1).max(200)).max(10_000),
  tables: z.record(z.string().regex(TABLE_NAME), z.number().int().nonnegative()),
  files: z.number().int().nonnegative().optional(),
  /**
   * Secret settings set when the backup was made ("category.key"): encrypted in db/settings.jsonl
   * (`aes-256-gcm`, key from BACKUP_ENCRYPTION_KEY with scrypt and `salt`; `check` tells a wrong
   * key at once), or left out (`none`, empty values).
   */
  secrets: z
    .object({
      encryption: z.enum(['none', 'aes-256-gcm']),
      kdf: z.literal('scrypt').optional(),
      salt: z.string().max(64).optional(),
      check: z.string().max(200).optional(),
      keys: z.array(z.string().regex(SETTING_NAME)).max(200),
    })
    .optional(),
});
export type BackupManifest = z.infer<typeof ZBackupManifest>;

/** What an archive entry name is; anything `unsafe` makes the whole archive refused. */
export type EntryKind =
  | { kind: 'manifest' }
  | { kind: 'table'; table: string }
  | { kind: 'file'; root: FileRoot; relative: string }
  | { kind: 'directory' }
  /** A name that could write outside the target folder: refused at once. */
  | { kind: 'unsafe'; reason: string }
  /** A harmless name outside the backup layout: refused too, once the archive is known to be a backup. */
  | { kind: 'unexpected'; reason: string };

/**
 * Classifies a zip entry name. Unsafe: empty names, backslashes, control characters, absolute
 * paths, drive letters, '.' or '..' segments, empty segments. Unexpected: anything outside
 * `manifest.json`, `db/<table>.jsonl`, `files/ring-files/…` and `files/uploads/…`.
 */
export function classifyEntryName(name: string): EntryKind {
  if (name.length === 0 || name.length > 1024) return { kind: 'unsafe', reason: 'length' };
  if (name.includes('\\')) return { kind: 'unsafe', reason: 'backslash' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return { kind: 'unsafe', reason: 'control character' };
  if (name.startsWith('/')) return { kind: 'unsafe', reason: 'absolute path' };
  if (/^[A-Za-z]:/.test(name)) return { kind: 'unsafe', reason: 'drive letter' };
  const isDirectory = name.endsWith('/');
  const segments = (isDirectory ? name.slice(0, -1) : name).split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..')
      return { kind: 'unsafe', reason: 'path segment' };
  }
  const [top, second, ...rest] = segments;
  if (segments.length === 1 && !isDirectory && top === MANIFEST_ENTRY) return { kind: 'manifest' };
  if (top === 'db') {
    if (segments.length === 1 && isDirectory) return { kind: 'directory' };
    const match =
      segments.length === 2 && !isDirectory ? /^([a-z_][a-z0-9_]{0,62})\.jsonl$/.exec(second ?? '') : null;
    if (match?.[1]) return { kind: 'table', table: match[1] };
    return { kind: 'unexpected', reason: 'outside db/<table>.jsonl' };
  }
  if (top === 'files') {
    if (segments.length === 1 && isDirectory) return { kind: 'directory' };
    if (!FILE_ROOTS.includes(second as FileRoot))
      return { kind: 'unexpected', reason: 'unknown files folder' };
    if (isDirectory) return { kind: 'directory' };
    if (rest.length === 0) return { kind: 'unexpected', reason: 'file root as a file' };
    return { kind: 'file', root: second as FileRoot, relative: rest.join('/') };
  }
  return { kind: 'unexpected', reason: 'outside db/ and files/' };
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/**
 * True when the entry's Unix mode (upper 16 bits of the external attributes, for archives made on
 * Unix) says it is anything but a regular file or a directory — a symbolic link above all.
 */
export function isSpecialEntry(externalFileAttributes: number, versionMadeBy: number): boolean {
  const madeOnUnix = versionMadeBy >> 8 === 3;
  const mode = (externalFileAttributes >>> 16) & 0xffff;
  if (!madeOnUnix && mode === 0) return false;
  const type = mode & S_IFMT;
  return type !== 0 && type !== S_IFREG && type !== S_IFDIR;
}

/**
 * Orders tables so that every table comes after the tables it references (parents first); ties
 * are broken by name so the order is stable. Self references are ignored. Throws on a cycle.
 */
export function orderTablesByDependencies(
  tables: string[],
  references: Array<{ child: string; parent: string }>,
): string[] {
  const known = new Set(tables);
  const parents = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  for (const { child, parent } of references) {
    if (child === parent || !known.has(child) || !known.has(parent)) continue;
    parents.get(child)!.add(parent);
  }
  const ordered: string[] = [];
  const placed = new Set<string>();
  const remaining = [...tables].sort();
  while (remaining.length > 0) {
    const index = remaining.findIndex((t) => [...parents.get(t)!].every((p) => placed.has(p)));
    if (index < 0) throw new Error(`Foreign keys form a cycle among: ${remaining.join(', ')}`);
    const [next] = remaining.splice(index, 1);
    ordered.push(next!);
    placed.add(next!);
  }
  return ordered;
}

export type MigrationCheck = 'compatible' | 'newer' | 'mismatch';

/**
 * A backup restores only into a database whose migrations start with the backup's (same version
 * or a later one). A migration the server does not know means the backup comes from a newer version.
 */
export function checkMigrations(backup: readonly string[], current: readonly string[]): MigrationCheck {
  const known = new Set(current);
  if (backup.some((name) => !known.has(name))) return 'newer';
  if (backup.length > current.length) return 'mismatch';
  return backup.every((name, i) => current[i] === name) ? 'compatible' : 'mismatch';
}

/** Values a row may hold: what both dialects give back for text and integer columns. */
export function isPlainValue(value: unknown): boolean {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** The name of a backup created at that instant: `securering-backup-YYYYMMDD-HHMMSS.zip` (UTC). */
export function backupFileName(at: Date, prefix = 'securering-backup', attempt = 0): string {
  const iso = at.toISOString();
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  return `${prefix}-${stamp}${attempt > 0 ? `-${attempt + 1}` : ''}.zip`;
}

/**
 * Candidate names for an uploaded archive: its own base name when it is already a safe one (any
 * folder part a client sent is dropped), then generated names.
 */
export function uploadNameCandidates(original: string, at: Date, count = 50): string[] {
  const base = original.split(/[\\/]/).pop() ?? '';
  const candidates = isBackupFilename(base) ? [base] : [];
  for (let attempt = 0; attempt < count; attempt++)
    candidates.push(backupFileName(at, 'securering-upload', attempt));
  return candidates;
}
