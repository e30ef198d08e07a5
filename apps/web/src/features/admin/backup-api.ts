import {
  BACKUP_MESSAGES,
  BACKUP_RESTORE_ABORT_MS,
  ZBackupCreateResponse,
  ZBackupListResponse,
  ZBackupMessageResponse,
  ZBackupRestoreResponse,
  ZBackupUploadResponse,
  type TBackupSettingToReenter,
} from '@securering/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiDownload, apiRequest } from '@/lib/api-client';
import type { RestoreOutcome } from './backup-format';

const PATH = '/api/admin/backup.php';

export const backupKeys = { all: ['admin', 'backups'] as const };

export function getBackupsQueryOptions() {
  return queryOptions({
    queryKey: backupKeys.all,
    queryFn: async ({ signal }) =>
      (
        await apiRequest(`${PATH}?action=list`, {
          auth: 'admin',
          schema: ZBackupListResponse,
          signal,
          fallbackError: BACKUP_MESSAGES.loadFailed,
        })
      ).backups,
  });
}

export const useBackups = () => useQuery(getBackupsQueryOptions());

export function useCreateBackup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiRequest(PATH, {
        method: 'POST',
        auth: 'admin',
        body: { action: 'create' },
        schema: ZBackupCreateResponse,
        fallbackError: BACKUP_MESSAGES.createFailed,
      }),
    onSettled: () => client.invalidateQueries({ queryKey: backupKeys.all }),
  });
}

/** Multipart upload: the action first, then the file, as the server reads them in that order. */
export function useUploadBackup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('action', 'upload');
      form.append('backup_file', file, file.name);
      return apiRequest(PATH, {
        method: 'POST',
        auth: 'admin',
        body: form,
        schema: ZBackupUploadResponse,
        fallbackError: BACKUP_MESSAGES.uploadFailed,
      });
    },
    onSettled: () => client.invalidateQueries({ queryKey: backupKeys.all }),
  });
}

export function useDeleteBackup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (filename: string) =>
      apiRequest(`${PATH}?filename=${encodeURIComponent(filename)}`, {
        method: 'DELETE',
        auth: 'admin',
        schema: ZBackupMessageResponse,
        fallbackError: BACKUP_MESSAGES.deleteFailed,
      }),
    onSettled: () => client.invalidateQueries({ queryKey: backupKeys.all }),
  });
}

/** A restore's end: answered (with the server's message and the secrets to enter again), or cut. */
export type RestoreResult =
  | {
      outcome: Extract<RestoreOutcome, 'restored'>;
      message: string;
      settingsToReenter: TBackupSettingToReenter[];
    }
  | { outcome: Extract<RestoreOutcome, 'cut'> };

/**
 * Starts a restore (spec 3 §4). The request is cut client-side after 1.2 s: the server carries on
 * regardless, and the page reloads a little later (4 s instead of 3 s). Either way every session
 * ends with the restore, this one included.
 */
export async function restoreBackup(filename: string): Promise<RestoreResult> {
  const controller = new AbortController();
  const timer = window.setTimeout(() => controller.abort(), BACKUP_RESTORE_ABORT_MS);
  try {
    const res = await apiRequest(PATH, {
      method: 'POST',
      auth: 'admin',
      body: { action: 'restore', filename },
      schema: ZBackupRestoreResponse,
      signal: controller.signal,
    });
    return { outcome: 'restored', message: res.message, settingsToReenter: res.settings_to_reenter };
  } catch (error) {
    if (controller.signal.aborted && error instanceof DOMException && error.name === 'AbortError')
      return { outcome: 'cut' };
    throw error;
  } finally {
    window.clearTimeout(timer);
  }
}

/** Downloads a backup with the admin bearer and saves it under its name. */
export function downloadBackup(filename: string): Promise<void> {
  return apiDownload(`${PATH}?action=download&filename=${encodeURIComponent(filename)}`, {
    auth: 'admin',
    filename,
    fallbackError: BACKUP_MESSAGES.downloadFailed,
    networkError: BACKUP_MESSAGES.downloadFailed,
  });
}
