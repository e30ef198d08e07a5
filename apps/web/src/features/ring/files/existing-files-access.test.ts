import { RING_FILES_MESSAGES, type TFileKeysResponse, type TWrappedFileKey } from '@securering/contract';
import {
  type EpochKey,
  generateEpochKey,
  generateFileKey,
  unwrapFileKey,
  wrapFileKey,
} from '@securering/e2ee';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { giveExistingFiles, type FileKeysApi } from './existing-files-access';

const RING = 'ring-1';

type StoredFile = TFileKeysResponse['files'][number];

/** keys.php as a server keeps it: pages of `pageSize` by id, wraps added (first per epoch kept). */
function fakeServer(files: StoredFile[], pageSize = 2) {
  const posts: number[] = [];
  const api: FileKeysApi = {
    async fileKeys(after) {
      const sorted = [...files].sort((a, b) => a.id.localeCompare(b.id)).filter((f) => f.id > after);
      const page = sorted.slice(0, pageSize);
      return {
        success: true,
        files: structuredClone(page),
        next: sorted.length > pageSize ? page.at(-1)!.id : null,
      };
    },
    async addFileKeys(wraps) {
      posts.push(wraps.length);
      for (const w of wraps) {
        const file = files.find((f) => f.id === w.file_id)!;
        if (!file.key_wraps.some((k) => k.epoch === w.file_key.epoch)) file.key_wraps.push(w.file_key);
      }
    },
  };
  return { api, posts, files };
}

describe('« Donner accès aux fichiers existants »', () => {
  let e1: EpochKey;
  let e2: EpochKey;
  let e3: EpochKey;
  let lost: EpochKey;
  beforeAll(async () => {
    e1 = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
    e2 = await generateEpochKey({ ringId: RING, epoch: 2, level: 'standard', namesKey: e1.namesKey });
    e3 = await generateEpochKey({ ringId: RING, epoch: 3, level: 'standard', namesKey: e1.namesKey });
    lost = await generateEpochKey({ ringId: RING, epoch: 9, level: 'standard', namesKey: e1.namesKey });
  });
  const held = (n: number) => [e1, e2, e3].find((k) => k.epoch === n);

  async function file(id: string, under: EpochKey | null, extra: EpochKey[] = []) {
    const fileKey = generateFileKey();
    const wrap = (k: EpochKey) => wrapFileKey(fileKey, k, { ringId: RING, fileId: id });
    const stored: StoredFile = {
      id,
      file_key: under ? await wrap(under) : null,
      key_wraps: await Promise.all(extra.map(wrap)),
    };
    return { stored, fileKey };
  }

  it('wraps every file it can open under the newcomer’s epoch, and only under it', async () => {
    const a = await file('a', e1);
    const b = await file('b', e2);
    const already = await file('c', e1, [e3]);
    const unreadable = await file('d', lost);
    const legacy = await file('e', null);
    const viaWrap = await file('f', lost, [e2]);
    const server = fakeServer([a, b, already, unreadable, legacy, viaWrap].map((f) => f.stored));

    const result = await giveExistingFiles({ ringId: RING, target: e3, epochKey: held, api: server.api });
    expect(result).toEqual({ given: 3, unreadable: 1 });
    for (const f of [a, b, already, viaWrap]) {
      const stored = server.files.find((s) => s.id === f.stored.id)!;
      const newcomerWrap = stored.key_wraps.find((w) => w.epoch === 3) as TWrappedFileKey;
      // The newcomer holds epoch 3 only: it opens the file key with it.
      expect(await unwrapFileKey(newcomerWrap, e3, { ringId: RING, fileId: f.stored.id })).toEqual(f.fileKey);
    }
    expect(server.files.find((s) => s.id === 'd')!.key_wraps).toEqual([]);
    expect(server.files.find((s) => s.id === 'e')!.key_wraps).toEqual([]);

    // Run again (a second admission in the same epoch): nothing more to give.
    expect(await giveExistingFiles({ ringId: RING, target: e3, epochKey: held, api: server.api })).toEqual({
      given: 0,
      unreadable: 1,
    });
  });

  it('sends at most 500 wraps per call', async () => {
    const many = await Promise.all(
      Array.from({ length: 501 }, (_, i) => file(`f${String(i).padStart(4, '0')}`, e1)),
    );
    const server = fakeServer(
      many.map((f) => f.stored),
      1000,
    );
    expect(await giveExistingFiles({ ringId: RING, target: e2, epochKey: held, api: server.api })).toEqual({
      given: 501,
      unreadable: 0,
    });
    expect(server.posts).toEqual([500, 1]);
  });

  it('a Ring whose plan has no file space has nothing to give; other failures are reported', async () => {
    const refuse = (message: string): FileKeysApi => ({
      fileKeys: () => Promise.reject(new ApiError(message, 403)),
      addFileKeys: () => Promise.resolve(),
    });
    expect(
      await giveExistingFiles({
        ringId: RING,
        target: e2,
        epochKey: held,
        api: refuse(RING_FILES_MESSAGES.fileSharingNotInPlan),
      }),
    ).toEqual({ given: 0, unreadable: 0 });
    await expect(
      giveExistingFiles({
        ringId: RING,
        target: e2,
        epochKey: held,
        api: refuse(RING_FILES_MESSAGES.keysAdminsOnly),
      }),
    ).rejects.toThrow(RING_FILES_MESSAGES.keysAdminsOnly);
  });
});
