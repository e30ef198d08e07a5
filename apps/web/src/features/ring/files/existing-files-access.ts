import {
  FILE_KEYS_BATCH,
  RING_FILES_MESSAGES,
  type TFileKeysResponse,
  type TWrappedFileKey,
} from '@securering/contract';
import { type EpochKey, wrapFileKey } from '@securering/e2ee';
import { ApiError } from '@/lib/api-client';
import { openFileKey } from './files-crypto';

/** The calls « Donner accès aux fichiers existants » makes (files-api's fileKeys / addFileKeys). */
export interface FileKeysApi {
  fileKeys(after: string): Promise<TFileKeysResponse>;
  addFileKeys(wraps: Array<{ file_id: string; file_key: TWrappedFileKey }>): Promise<unknown>;
}

export interface ExistingFilesAccess {
  /** Files whose key is now also wrapped under the target epoch. */
  given: number;
  /** Files this browser could not open (no key of their epochs, or a damaged wrap). */
  unreadable: number;
}

/**
 * « Donner accès aux fichiers existants » (issue 24), run by the admitting member's browser after
 * the admission's new epoch: every file key it can open is wrapped again under `target` (the epoch
 * the newcomer reads from), so the newcomer opens existing files without receiving any earlier
 * epoch key (the messages of those epochs stay closed to it). The server only stores the wraps.
 * A Ring whose plan has no file space has nothing to give.
 */
export async function giveExistingFiles(options: {
  ringId: string;
  target: EpochKey;
  epochKey: (epoch: number) => EpochKey | undefined;
  api: FileKeysApi;
}): Promise<ExistingFilesAccess> {
  const { ringId, target, epochKey, api } = options;
  const result: ExistingFilesAccess = { given: 0, unreadable: 0 };
  let batch: Array<{ file_id: string; file_key: TWrappedFileKey }> = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await api.addFileKeys(batch);
    result.given += batch.length;
    batch = [];
  };
  let after = '';
  for (;;) {
    let page: TFileKeysResponse;
    try {
      page = await api.fileKeys(after);
    } catch (error) {
      if (error instanceof ApiError && error.message === RING_FILES_MESSAGES.fileSharingNotInPlan)
        return result;
      throw error;
    }
    for (const file of page.files) {
      if (!file.file_key) continue;
      if ([file.file_key, ...file.key_wraps].some((w) => w.epoch === target.epoch)) continue;
      let fileKey: Uint8Array | undefined;
      try {
        fileKey = await openFileKey(file, ringId, epochKey);
      } catch {
        fileKey = undefined;
      }
      if (!fileKey) {
        result.unreadable++;
        continue;
      }
      batch.push({
        file_id: file.id,
        file_key: await wrapFileKey(fileKey, target, { ringId, fileId: file.id }),
      });
      if (batch.length === FILE_KEYS_BATCH.maxWraps) await flush();
    }
    if (!page.next) break;
    after = page.next;
  }
  await flush();
  return result;
}
