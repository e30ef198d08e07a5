import { randomUUID } from 'node:crypto';
import {
  RING_FILES_API_PATHS as PATHS,
  RING_FILES_MESSAGES as M,
  ZFileKeysResponse,
  ZListFilesResponse,
  type TWrappedFileKey,
} from '@securering/contract';
import { encryptName, generateFileKey, unwrapFileKey, wrapFileKey } from '@securering/e2ee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import type { E2eeMember } from '../e2ee-member';
import { ringWithMembers } from '../ring-fixture';

/**
 * « Donner accès aux fichiers existants » on the server (issue 24): the admitting member's browser
 * wraps existing file keys again under the admission's epoch key; the server stores those opaque
 * wraps only from an owner or Ring admin holding that epoch, for files of its Ring, never replacing
 * one, and lists them with the file.
 */
describe('existing files given to a newcomer: extra wraps of file keys (issue 24)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /** A file row as an upload leaves it, its key wrapped under `epoch` of the uploader. */
  async function storedFile(member: E2eeMember, epoch: number) {
    const id = randomUUID();
    const fileKey = generateFileKey();
    const wrapped = await wrapFileKey(fileKey, member.epochKeys.get(epoch)!, {
      ringId: member.ringId,
      fileId: id,
    });
    const name = encryptName(member.epochKeys.get(epoch)!.namesKey, member.ringId, 'devis.pdf');
    const now = new Date().toISOString();
    await t.ctx.db
      .insertInto('ring_files')
      .values({
        id,
        ring_id: member.ringId,
        folder_path: '',
        name,
        extension: '',
        original_name: name,
        mime_type: 'application/octet-stream',
        size_bytes: 100,
        storage_key: id,
        uploaded_by_member_id: member.memberId,
        uploaded_at: now,
        updated_at: now,
        file_key: JSON.stringify(wrapped),
        key_epoch: epoch,
      })
      .execute();
    return { id, fileKey, wrapped };
  }

  const wrapsStored = (fileId: string) =>
    t.ctx.db.selectFrom('ring_file_key_wraps').selectAll().where('file_id', '=', fileId).execute();

  it('the owner wraps an existing file again for the epoch of an admission: the newcomer opens it', async () => {
    const { ringId, owner, members } = await ringWithMembers(t, 2);
    const [alice, zoe] = members as [E2eeMember, E2eeMember];
    await alice.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    const file = await storedFile(owner, 1);

    // Zoé is admitted without the history: she holds epoch 2 only, and the file is under epoch 1.
    zoe.sponsor = undefined;
    await zoe.publish();
    expect((await owner.admit(zoe.memberId, { shareFiles: true })).statusCode).toBe(200);
    expect((await owner.rotate()).statusCode).toBe(200);
    await zoe.loadKeys();
    expect([...zoe.epochKeys.keys()]).toEqual([2]);

    const page = await owner.call('GET', PATHS.keys);
    expect(page.statusCode, page.body).toBe(200);
    const listed = ZFileKeysResponse.parse(page.json());
    expect(listed).toMatchObject({
      next: null,
      files: [{ id: file.id, file_key: file.wrapped, key_wraps: [] }],
    });

    const again = await wrapFileKey(file.fileKey, owner.epochKeys.get(2)!, { ringId, fileId: file.id });
    const added = await owner.call('POST', PATHS.keys, { wraps: [{ file_id: file.id, file_key: again }] });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json()).toEqual({ success: true, stored: 1 });

    // list.php gives the wraps with the file; Zoé unwraps the one of her epoch.
    const list = ZListFilesResponse.parse((await zoe.call('GET', PATHS.list)).json());
    const seen = list.files.find((f) => f.id === file.id)!;
    expect(seen.key_wraps).toEqual([again]);
    const opened = await unwrapFileKey(seen.key_wraps[0]!, zoe.epochKeys.get(2)!, {
      ringId,
      fileId: file.id,
    });
    expect(opened).toEqual(file.fileKey);

    // The first wrap of an epoch stays: another one for the same file and epoch is not stored.
    const replaced = await wrapFileKey(generateFileKey(), owner.epochKeys.get(2)!, {
      ringId,
      fileId: file.id,
    });
    const second = await owner.call('POST', PATHS.keys, {
      wraps: [{ file_id: file.id, file_key: replaced }],
    });
    expect(second.json()).toEqual({ success: true, stored: 0 });
    expect((await wrapsStored(file.id)).map((w) => JSON.parse(w.file_key) as TWrappedFileKey)).toEqual([
      again,
    ]);

    // The wraps go with their file.
    expect((await owner.call('POST', PATHS.delete, { id: file.id })).statusCode).toBe(200);
    expect(await wrapsStored(file.id)).toEqual([]);
  });

  it('refuses wraps from a plain member, under an epoch the caller does not hold, for another Ring’s file, or malformed; nothing is stored', async () => {
    const { owner, members } = await ringWithMembers(t, 1);
    const [alice] = members as [E2eeMember];
    await alice.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    await alice.loadKeys();
    const file = await storedFile(owner, 1);
    const other = await ringWithMembers(t, 0);
    expect((await other.owner.rotate()).statusCode).toBe(200);
    const foreign = await storedFile(other.owner, 1);
    const wrap = (key = owner.epochKeys.get(1)!, fileId = file.id) =>
      wrapFileKey(file.fileKey, key, { ringId: owner.ringId, fileId });

    // A plain member holds the key but does not admit: neither the list nor a wrap.
    for (const [method, payload] of [
      ['GET', undefined],
      ['POST', { wraps: [{ file_id: file.id, file_key: await wrap() }] }],
    ] as const) {
      const res = await alice.call(method, PATHS.keys, payload);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(M.keysAdminsOnly);
    }

    // An epoch the owner holds no share of (another Ring's epoch 1 is a different key, same number).
    const unknownEpoch = { ...(await wrap()), epoch: 7 };
    const notHeld = await owner.call('POST', PATHS.keys, {
      wraps: [{ file_id: file.id, file_key: unknownEpoch }],
    });
    expect(notHeld.statusCode).toBe(400);
    expect(notHeld.json().error).toBe(M.keysEpochNotHeld);

    const foreignFile = await owner.call('POST', PATHS.keys, {
      wraps: [
        { file_id: file.id, file_key: await wrap() },
        { file_id: foreign.id, file_key: await wrap(owner.epochKeys.get(1)!, foreign.id) },
      ],
    });
    expect(foreignFile.statusCode).toBe(400);
    expect(foreignFile.json().error).toBe(M.fileNotFound);

    for (const bad of [{ wraps: [] }, { wraps: [{ file_id: file.id, file_key: { v: 1, epoch: 1 } }] }, {}]) {
      const res = await owner.call('POST', PATHS.keys, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error, JSON.stringify(bad)).toBe(M.invalidFileKey);
    }
    const tooMany = await owner.call('POST', PATHS.keys, {
      wraps: Array.from({ length: 501 }, () => ({ file_id: file.id, file_key: file.wrapped })),
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error).toBe(M.tooManyKeys(500));

    expect(await wrapsStored(file.id)).toEqual([]);
    expect(await wrapsStored(foreign.id)).toEqual([]);
  });

  it('lists every folder’s files a page at a time', async () => {
    const { owner } = await ringWithMembers(t, 0);
    expect((await owner.rotate()).statusCode).toBe(200);
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add((await storedFile(owner, 1)).id);
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const res = await owner.call('GET', `${PATHS.keys}?after=${encodeURIComponent(after)}`);
      const page = ZFileKeysResponse.parse(res.json());
      seen.push(...page.files.map((f) => f.id));
      if (!page.next) break;
      after = page.next;
    }
    expect(new Set(seen)).toEqual(ids);
    expect(seen).toEqual([...seen].sort());
  });
});
