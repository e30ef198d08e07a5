import { RING_FILES_MESSAGES, encryptedFileSize } from '@securering/contract';

/**
 * Pure rules of the files tab (spec 2 §2, §5, §9; issue 12): folder paths of encrypted segments
 * and their breadcrumb, icons by extension, the size and quota check made before a file is read,
 * rename rules, and which way a file travels (multipart or tus, Blob or service worker).
 */

// ---------------------------------------------------------------------------------------------
// Paths: "" is the root, encrypted segments joined by "/"
// ---------------------------------------------------------------------------------------------

export function joinPath(parent: string, segment: string): string {
  return parent === '' ? segment : `${parent}/${segment}`;
}

export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function segmentsOf(path: string): string[] {
  return path === '' ? [] : path.split('/');
}

/** What a name that does not decrypt (altered, or of another key) shows as. */
export const UNREADABLE_NAME = 'Nom illisible';
export const ROOT_LABEL = '🏠 Racine';

export interface Crumb {
  /** The folder's encrypted path ("" for the root). */
  path: string;
  label: string;
}

/**
 * The breadcrumb of an encrypted folder path: "🏠 Racine", then one crumb per segment, labelled
 * with its decrypted name ("Nom illisible" when `decrypt` gives undefined).
 */
export function breadcrumbOf(path: string, decrypt: (segment: string) => string | undefined): Crumb[] {
  const crumbs: Crumb[] = [{ path: '', label: ROOT_LABEL }];
  let at = '';
  for (const segment of segmentsOf(path)) {
    at = joinPath(at, segment);
    crumbs.push({ path: at, label: decrypt(segment) ?? UNREADABLE_NAME });
  }
  return crumbs;
}

// ---------------------------------------------------------------------------------------------
// Names and icons
// ---------------------------------------------------------------------------------------------

/** The extension of a file name, lower case, without the dot ("" when none: "notes", ".bashrc"). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return '';
  return name.slice(dot + 1).toLowerCase();
}

export type FileKind = 'image' | 'video' | 'audio' | 'archive' | 'document' | 'other';

const KINDS: Record<Exclude<FileKind, 'other'>, readonly string[]> = {
  image: ['jpg', 'jpeg', 'png', 'gif', 'webp', 'bmp', 'svg', 'tif', 'tiff', 'heic', 'heif', 'avif', 'ico'],
  video: ['mp4', 'mov', 'avi', 'mkv', 'webm', 'm4v', 'wmv', 'flv', 'mpeg', 'mpg', '3gp'],
  audio: ['mp3', 'wav', 'ogg', 'oga', 'flac', 'aac', 'm4a', 'wma', 'opus', 'aif', 'aiff'],
  archive: ['zip', 'rar', '7z', 'tar', 'gz', 'tgz', 'bz2', 'xz', 'zst', 'iso'],
  document: [
    'pdf',
    'doc',
    'docx',
    'odt',
    'rtf',
    'txt',
    'md',
    'xls',
    'xlsx',
    'ods',
    'csv',
    'ppt',
    'pptx',
    'odp',
    'pages',
    'numbers',
    'key',
  ],
};

/** The icon family of a (decrypted) file name, by its extension (spec 2 §2). */
export function fileKindOf(name: string): FileKind {
  const extension = extensionOf(name);
  for (const [kind, extensions] of Object.entries(KINDS) as Array<[FileKind, readonly string[]]>) {
    if (extensions.includes(extension)) return kind;
  }
  return 'other';
}

/**
 * A rename as spec 2 §5 wants it: a blank or unchanged name is ignored (no call); otherwise the
 * trimmed new name.
 */
export function renameDecision(
  current: string,
  input: string,
): { rename: false } | { rename: true; name: string } {
  const name = input.trim();
  if (name === '' || name === current) return { rename: false };
  return { rename: true, name };
}

/** Longest file or folder name, in characters (packages/e2ee names). */
export const MAX_NAME_CHARACTERS = 255;

/** Why a name cannot be used (French), or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  const characters = [...name.normalize('NFC')];
  if (
    characters.length === 0 ||
    characters.length > MAX_NAME_CHARACTERS ||
    name === '.' ||
    name === '..' ||
    // eslint-disable-next-line no-control-regex
    /[/\u0000-\u001f\u007f]/.test(name)
  )
    return RING_FILES_MESSAGES.invalidName;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Uploads: checked before the file is read
// ---------------------------------------------------------------------------------------------

export interface UploadBudget {
  /** Bytes the Ring still has (list.php `storage.remaining`). */
  remainingBytes: number;
  /** The largest stored (encrypted) file (list.php `max_file_bytes`). */
  maxFileBytes: number;
  /** The same limit in Mo, for the message. */
  maxFileSizeMb: number;
}

export type UploadCheck = { ok: true; storedBytes: number } | { ok: false; reason: string };

/**
 * Checks a batch of files against the size limit and the space left, in order, from their plain
 * sizes: each accepted file's encrypted size comes off the space left for the next ones. A file
 * refused here is never read nor encrypted.
 */
export function checkUploads(
  files: ReadonlyArray<{ name: string; size: number }>,
  budget: UploadBudget,
): UploadCheck[] {
  let remaining = budget.remainingBytes;
  return files.map((file) => {
    const problem = nameProblem(file.name);
    if (problem) return { ok: false, reason: problem };
    const storedBytes = encryptedFileSize(file.size);
    if (storedBytes > budget.maxFileBytes)
      return { ok: false, reason: RING_FILES_MESSAGES.fileTooLarge(budget.maxFileSizeMb) };
    if (storedBytes > remaining) return { ok: false, reason: RING_FILES_MESSAGES.quotaExceeded };
    remaining -= storedBytes;
    return { ok: true, storedBytes };
  });
}

/** Above this plain size a file goes through tus (resumable, in parts); below, upload.php. */
export const TUS_THRESHOLD_BYTES = 8 * 1024 * 1024;
/** Bytes per tus PATCH: what the page holds of a large file at a time (encrypted). */
export const TUS_CHUNK_BYTES = 8 * 1024 * 1024;

export function uploadRouteOf(plainBytes: number): 'multipart' | 'tus' {
  return plainBytes > TUS_THRESHOLD_BYTES ? 'tus' : 'multipart';
}

/** Whole percent of `done` over `total` (0 to 100). */
export function percentOf(done: number, total: number): number {
  if (!(total > 0)) return 0;
  return Math.max(0, Math.min(100, Math.floor((done / total) * 100)));
}

// ---------------------------------------------------------------------------------------------
// Listing shown
// ---------------------------------------------------------------------------------------------

/** A listing as this browser verified it (its signed metadata read), for the folder it lists. */
export interface VerifiedListing<Data, Page> {
  data: Data;
  page: Page;
  folder: string;
}

/**
 * What the file space shows: the last listing this browser verified when it is the current answer,
 * or, while a refetch of the same folder is being verified, that previous listing (rows stay in
 * place instead of blinking out, and a drag in progress keeps its row and its target). Never a
 * listing of another folder, and nothing when there is no current answer (error, first load).
 */
export function shownListing<Data, Page>(
  read: VerifiedListing<Data, Page> | null,
  current: Data | undefined,
  folder: string,
): VerifiedListing<Data, Page> | undefined {
  if (!read || current === undefined) return undefined;
  return read.data === current || read.folder === folder ? read : undefined;
}

// ---------------------------------------------------------------------------------------------
// Downloads
// ---------------------------------------------------------------------------------------------

/** Files larger than this (plain bytes) are streamed to disk through the service worker. */
export const STREAM_DOWNLOAD_DEFAULT_BYTES = 100 * 1024 * 1024;
/**
 * localStorage key that lowers the streaming threshold (bytes), for tests of the service-worker
 * path on small files; the product keeps the 100 Mo default.
 */
export const STREAM_DOWNLOAD_THRESHOLD_KEY = 'securering:stream-download-bytes';

/** The streaming threshold from the stored knob, or the default for anything not a positive integer. */
export function streamThresholdOf(stored: string | null): number {
  if (stored === null || !/^\d{1,15}$/.test(stored.trim())) return STREAM_DOWNLOAD_DEFAULT_BYTES;
  const value = Number(stored.trim());
  return value > 0 ? value : STREAM_DOWNLOAD_DEFAULT_BYTES;
}

/**
 * `Content-Disposition` of a streamed download: an ASCII fallback name and the exact UTF-8 name
 * (RFC 6266 / 5987); quotes, backslashes and control characters cannot break out of the header.
 */
export function contentDispositionOf(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_').trim() || 'fichier';
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
