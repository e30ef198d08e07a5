import {
  parseWrappedFileKey,
  type TRingFile,
  type TRingFolder,
  type TWrappedFileKey,
} from '@securering/contract';
import type { RingMembersTable } from '../../db/schema';
import { lastSegment, mayManageFile, mayManageFolder } from './ring-files.policy';
import type { RingFileRow, RingFolderRow } from './ring-files.repository';

type Viewer = Pick<RingMembersTable, 'id' | 'role'>;

/** A file as the API shows it to `viewer`, with the extra wraps of its key (`keyWraps`). */
export function toRingFile(row: RingFileRow, viewer: Viewer, keyWraps: TWrappedFileKey[]): TRingFile {
  return {
    id: row.id,
    name: row.name,
    extension: row.extension,
    original_name: row.original_name,
    size_bytes: Number(row.size_bytes),
    uploaded_at: row.uploaded_at,
    updated_at: row.updated_at,
    folder: row.folder_path,
    file_key: row.file_key ? (parseWrappedFileKey(row.file_key) ?? null) : null,
    key_epoch: row.key_epoch === null ? null : Number(row.key_epoch),
    key_wraps: keyWraps,
    uploaded_by: row.uploaded_by_member_id,
    can_manage: mayManageFile(viewer, row),
    meta: row.meta ?? null,
  };
}

export function toRingFolder(row: RingFolderRow, viewer: Viewer): TRingFolder {
  return {
    id: row.id,
    path: row.path,
    name: lastSegment(row.path),
    created_at: row.created_at,
    can_manage: mayManageFolder(viewer, row),
    meta: row.meta ?? null,
  };
}
