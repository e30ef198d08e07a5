import { RING_FILES_MESSAGES, maxEncryptedFileBytes, sealedMetaEpoch } from '@securering/contract';
import type { RingMembersTable, RingsTable } from '../../db/schema';

/** Pure rules of the Ring file space: capability, rights, quota and size, folder paths. */

/**
 * Whether a Ring's plan includes file sharing (spec 2 §6): the starter plan does not; the
 * professional and enterprise plans, and plans created in the back office, do. Plans carry no
 * capability flag for it, so the Ring's plan slug decides.
 */
export function fileSharingAllowed(planSlug: string): boolean {
  return planSlug !== 'starter';
}

type Member = Pick<RingMembersTable, 'id' | 'role'>;

/** Owner and Ring admins manage every file and folder. */
export const isRingManager = (member: Member): boolean => member.role === 'owner' || member.role === 'admin';

/**
 * Who gives a newcomer access to existing files (« Donner accès aux fichiers existants »): those
 * who admit, the owner and Ring admins, once admitted in the membership log and active.
 */
export function mayShareFileKeys(
  member: Member & Pick<RingMembersTable, 'status' | 'admitted_seq'>,
): boolean {
  return isRingManager(member) && member.status === 'active' && member.admitted_seq !== null;
}

/** A member renames and deletes its own files; owner and Ring admins all files (issue 12). */
export function mayManageFile(member: Member, file: { uploaded_by_member_id: string | null }): boolean {
  return isRingManager(member) || file.uploaded_by_member_id === member.id;
}

/** A member renames and deletes the folders it created; owner and Ring admins all folders. */
export function mayManageFolder(member: Member, folder: { created_by_member_id: string | null }): boolean {
  return isRingManager(member) || folder.created_by_member_id === member.id;
}

/**
 * Whether sending `incoming` metadata for a folder is a migration any member may make (issue 27):
 * the folder has none yet, or its metadata names an older epoch than `incoming` (folder names are
 * sealed again under each new epoch by the first member who opens their parent). The browser
 * checks the signature; the server only compares the epochs the blobs name.
 */
export function isFolderMetaMigration(stored: string | null, incoming: string | undefined): boolean {
  if (incoming === undefined) return false;
  const next = sealedMetaEpoch(incoming);
  if (next === undefined) return false;
  if (stored === null) return true;
  return (sealedMetaEpoch(stored) ?? 0) < next;
}

/** The most a Ring stores per file: the encrypted size of `max_file_size_mb` MiB. */
export const maxFileBytesOf = (ring: Pick<RingsTable, 'max_file_size_mb'>): number =>
  maxEncryptedFileBytes(ring.max_file_size_mb);

/** What the quota and the size limit leave for one upload. */
export interface UploadBudget {
  quotaBytes: number;
  /** Bytes of stored files. */
  usedBytes: number;
  /** Bytes reserved by other uploads in progress. */
  reservedBytes: number;
  maxFileBytes: number;
}

/** What is known of the upload's size before reading it. */
export interface UploadSizeHints {
  /** The exact encrypted size the client announced (tus Upload-Length, a `size` field). */
  declaredBytes?: number | undefined;
  /** The file cannot be larger (the request's Content-Length). */
  upperBoundBytes?: number | undefined;
  /** The file cannot be smaller (Content-Length less the most the other fields can take). */
  lowerBoundBytes?: number | undefined;
}

/** Which bound a reservation stops at, so an upload going past it gets the right French error. */
export type UploadLimit = 'declared' | 'size' | 'quota' | 'length';

export type UploadAllowance =
  { ok: true; reserveBytes: number; limitedBy: UploadLimit } | { ok: false; reason: 'too_large' | 'quota' };

/**
 * Decides before any byte is read: an upload sure to exceed the file size limit or the space left
 * is refused; otherwise the bytes to reserve (the declared size, or the tightest bound that is
 * known) and which bound the stream will be held to.
 */
export function uploadAllowance(budget: UploadBudget, hints: UploadSizeHints): UploadAllowance {
  const available = Math.max(0, budget.quotaBytes - budget.usedBytes - budget.reservedBytes);
  const smallest = hints.declaredBytes ?? hints.lowerBoundBytes ?? 0;
  if (smallest > budget.maxFileBytes) return { ok: false, reason: 'too_large' };
  if (smallest > available) return { ok: false, reason: 'quota' };
  if (hints.declaredBytes !== undefined) {
    return { ok: true, reserveBytes: hints.declaredBytes, limitedBy: 'declared' };
  }
  const upper = hints.upperBoundBytes;
  if (upper !== undefined && upper <= budget.maxFileBytes && upper <= available)
    return { ok: true, reserveBytes: upper, limitedBy: 'length' };
  if (budget.maxFileBytes <= available)
    return { ok: true, reserveBytes: budget.maxFileBytes, limitedBy: 'size' };
  return { ok: true, reserveBytes: available, limitedBy: 'quota' };
}

/** The French reason an upload was refused, before or while streaming. */
export function uploadRefusal(reason: UploadLimit | 'too_large', maxFileSizeMb: number): string {
  switch (reason) {
    case 'too_large':
    case 'size':
      return RING_FILES_MESSAGES.fileTooLarge(maxFileSizeMb);
    case 'quota':
      return RING_FILES_MESSAGES.quotaExceeded;
    case 'declared':
      return RING_FILES_MESSAGES.sizeMismatch;
    case 'length':
      return RING_FILES_MESSAGES.uploadInterrupted;
  }
}

// ---------------------------------------------------------------------------------------------
// Folder paths ("" is the root; segments joined by "/")
// ---------------------------------------------------------------------------------------------

export function joinPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** True when `path` is `ancestor` or inside it. */
export function isSameOrInside(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/**
 * What a folder rename does (spec 2 §5): nothing for a blank or unchanged target; refused into
 * the folder itself or one of its subfolders; otherwise a move of the whole subtree.
 */
export function folderRenamePlan(oldPath: string, newPath: string): 'unchanged' | 'into_itself' | 'move' {
  if (newPath === '' || newPath === oldPath) return 'unchanged';
  if (isSameOrInside(newPath, oldPath)) return 'into_itself';
  return 'move';
}

// ---------------------------------------------------------------------------------------------
// Downloads
// ---------------------------------------------------------------------------------------------

/**
 * Reads a `Range` header against a file of `size` bytes: one range (`bytes=a-b`, `bytes=a-`,
 * `bytes=-n`) → the bytes to send; a range starting past the end → 'unsatisfiable' (416);
 * anything else (several ranges, other units, garbage) → undefined: the whole file is sent.
 */
export function parseByteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
