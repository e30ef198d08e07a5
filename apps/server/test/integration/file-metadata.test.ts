import { randomUUID } from 'node:crypto';
import {
  RING_FILES_API_PATHS as PATHS,
  RING_FILES_MESSAGES as M,
  ZListFilesResponse,
  ZListFoldersResponse,
  ZMoveFileResponse,
  ZUploadFileResponse,
} from '@securering/contract';
import {
  type EpochKey,
  type SignedPin,
  deriveNameTagKey,
  encryptName,
  generateFileKey,
  importVerifyKey,
  metaSignerKeys,
  nameTag,
  opaqueName,
  openFileMeta,
  openFolderMeta,
  sealFileMeta,
  sealFolderMeta,
  wrapFileKey,
} from '@securering/e2ee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import type { E2eeMember } from '../e2ee-member';
import { ringWithMembers } from '../ring-fixture';
import { fakeCiphertext, multipartBody } from '../ring-files-client';

/**
 * Sealed file and folder metadata on the server (issue 27, review M3): the browser sends one
 * opaque blob per file (name, type, folder, uploader, version, content, under the file key) and
 * per folder (name, parent, version, under an epoch key), each signed at a membership-log
 * position, and lookup tags instead of names; the server stores and returns them with the folder
 * trail, and lets any member migrate an item that has none (or a folder sealed under an older
 * epoch), never overwrite one.
 */
describe('sealed file and folder metadata (issue 27, M3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function ring() {
    const { ringId, owner, members } = await ringWithMembers(t, 2);
    const [alice, zoe] = members as [E2eeMember, E2eeMember];
    await alice.publish();
    await zoe.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    await alice.loadKeys();
    await zoe.loadKeys();
    const epochKey = alice.epochKeys.get(1)!;
    return { ringId, owner, alice, zoe, epochKey };
  }
  type Ring = Awaited<ReturnType<typeof ring>>;

  /** What a reader's browser asks: the keys its verified log gives the signer at the pin. */
  const signerKeysOf = (reader: E2eeMember) => async (pin: SignedPin) => {
    const log = await reader.syncLog();
    return Promise.all(metaSignerKeys(log!, pin).map((k) => importVerifyKey(k)));
  };

  /** The signer at the head of the log it verified, writing in `epoch`. */
  async function signer(m: E2eeMember, epoch = 1) {
    const log = await m.syncLog();
    return {
      memberId: m.memberId,
      signingPrivateKey: m.identity.signing.privateKey,
      pin: { epoch, logSeq: log!.head.seq, logHash: log!.head.hash },
    };
  }
  const sealFolder = async (
    who: E2eeMember,
    epochKey: EpochKey,
    folderId: string,
    meta: { name: string; parent: string; version: number },
  ) => {
    const by = await signer(who, epochKey.epoch);
    return sealFolderMeta({ ringId: epochKey.ringId, folderId, epochKey, meta, pin: by.pin, signer: by });
  };

  async function list(who: E2eeMember, folder = '') {
    const res = await who.call('GET', `${PATHS.list}?folder=${encodeURIComponent(folder)}`);
    expect(res.statusCode, res.body).toBe(200);
    return ZListFilesResponse.parse(res.json());
  }

  async function mkdir(r: Ring, who: E2eeMember, name: string, parent: { path: string; id: string }) {
    const id = randomUUID();
    const tag = await nameTag(await deriveNameTagKey(r.epochKey), parent.id, name);
    const meta = await sealFolder(who, r.epochKey, id, { name, parent: parent.id, version: 1 });
    const res = await who.call('POST', PATHS.mkdir, { parent: parent.path, name: tag, id, meta });
    return { res, id, tag, meta };
  }

  async function upload(r: Ring, who: E2eeMember, name: string, folder: { path: string; id: string }) {
    const fileId = randomUUID();
    const fileKey = generateFileKey();
    const by = await signer(who);
    const meta = await sealFileMeta({
      ringId: r.ringId,
      fileId,
      fileKey,
      meta: {
        name,
        type: 'application/pdf',
        folder: folder.id,
        uploader: who.memberId,
        version: 1,
        content: null,
      },
      pin: by.pin,
      signer: by,
    });
    const wrapped = await wrapFileKey(fileKey, r.epochKey, { ringId: r.ringId, fileId });
    const { payload, contentType } = multipartBody(
      [
        ['folder', folder.path],
        ['name', opaqueName()],
        ['original_name', opaqueName()],
        ['extension', ''],
        ['file_id', fileId],
        ['file_key', JSON.stringify(wrapped)],
        ['meta', meta],
      ],
      fakeCiphertext(100),
    );
    const res = await t.app.inject({
      method: 'POST',
      url: PATHS.upload,
      headers: { ...who.headers, 'content-type': contentType },
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    return { file: ZUploadFileResponse.parse(res.json()).file, fileKey, meta };
  }

  it('stores each file’s and folder’s sealed metadata and returns it with the folder trail', async () => {
    const r = await ring();
    const root = { path: '', id: '' };
    const projets = await mkdir(r, r.alice, 'Projets', root);
    expect(projets.res.statusCode, projets.res.body).toBe(200);
    // The lookup tag makes the same name in the same folder and epoch a duplicate…
    const again = await mkdir(r, r.zoe, 'Projets', root);
    expect(again.res.statusCode).toBe(409);
    expect(again.res.json().error).toBe(M.folderExists);
    const inside = { path: projets.tag, id: projets.id };
    const contrat = await upload(r, r.alice, 'contrat_signé.pdf', inside);
    expect(contrat.file.meta).toBe(contrat.meta);

    const top = await list(r.zoe);
    expect(top.trail).toEqual([]);
    expect(top.folders).toMatchObject([{ id: projets.id, path: projets.tag, meta: projets.meta }]);
    const opened = await openFolderMeta({
      ringId: r.ringId,
      folderId: top.folders[0]!.id,
      epochKey: (epoch) => r.zoe.epochKeys.get(epoch),
      sealed: top.folders[0]!.meta!,
      signerKeys: signerKeysOf(r.zoe),
    });
    expect(opened).toMatchObject({
      signer: r.alice.memberId,
      meta: { name: 'Projets', parent: '', version: 1 },
      pin: { epoch: 1 },
    });

    const page = await list(r.zoe, projets.tag);
    expect(page.trail).toMatchObject([{ id: projets.id, meta: projets.meta }]);
    const [file] = page.files;
    expect(file?.meta).toBe(contrat.meta);
    const meta = await openFileMeta({
      ringId: r.ringId,
      fileId: file!.id,
      fileKey: contrat.fileKey,
      sealed: file!.meta!,
      signerKeys: signerKeysOf(r.zoe),
    });
    expect(meta.meta).toEqual({
      name: 'contrat_signé.pdf',
      type: 'application/pdf',
      folder: projets.id,
      uploader: r.alice.memberId,
      version: 1,
      content: null,
    });
  });

  it('lets any member migrate an item without metadata once, never overwrite one', async () => {
    const r = await ring();
    // A file and a folder from before issue 27: names under the Ring names key, no metadata.
    const legacy = await upload(r, r.alice, 'ancien.pdf', { path: '', id: '' });
    await t.ctx.db.updateTable('ring_files').set({ meta: null }).where('id', '=', legacy.file.id).execute();
    const oldSegment = encryptName(r.epochKey.namesKey, r.ringId, 'Archives');
    expect((await r.alice.call('POST', PATHS.mkdir, { parent: '', name: oldSegment })).statusCode).toBe(200);
    const [folderRow] = (await list(r.zoe)).folders;
    expect(folderRow?.meta).toBeNull();

    // Zoé manages neither: a plain rename is refused…
    const plain = await r.zoe.call('POST', PATHS.rename, { id: legacy.file.id, new_name: opaqueName() });
    expect(plain.statusCode).toBe(403);
    // …the migration is accepted, signed by her, without changing the file's date.
    const zoe = await signer(r.zoe);
    const migrated = await sealFileMeta({
      ringId: r.ringId,
      fileId: legacy.file.id,
      fileKey: legacy.fileKey,
      meta: {
        name: 'ancien.pdf',
        type: '',
        folder: '',
        uploader: r.alice.memberId,
        version: 1,
        content: null,
      },
      pin: zoe.pin,
      signer: zoe,
    });
    const res = await r.zoe.call('POST', PATHS.rename, {
      id: legacy.file.id,
      new_name: opaqueName(),
      original_name: opaqueName(),
      extension: '',
      meta: migrated,
    });
    expect(res.statusCode, res.body).toBe(200);
    const [file] = (await list(r.alice)).files;
    expect(file?.meta).toBe(migrated);
    expect(file?.updated_at).toBe(legacy.file.updated_at);
    expect(file?.name).not.toBe(legacy.file.name);
    // Once it has metadata, only those who manage the file change it.
    const overwrite = await r.zoe.call('POST', PATHS.rename, {
      id: legacy.file.id,
      new_name: opaqueName(),
      meta: migrated,
    });
    expect(overwrite.statusCode).toBe(403);
    expect(overwrite.json().error).toBe(M.ownFilesOnly);

    // The folder: its segment becomes a lookup tag and it gets metadata, in place.
    const tag = await nameTag(await deriveNameTagKey(r.epochKey), '', 'Archives');
    const folderMeta = await sealFolder(r.zoe, r.epochKey, folderRow!.id, {
      name: 'Archives',
      parent: '',
      version: 1,
    });
    const moved = await r.zoe.call('POST', PATHS.renameFolder, {
      old_path: oldSegment,
      new_path: tag,
      meta: folderMeta,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await list(r.alice)).folders).toMatchObject([{ id: folderRow!.id, path: tag, meta: folderMeta }]);
    const again = await r.zoe.call('POST', PATHS.renameFolder, {
      old_path: tag,
      new_path: oldSegment,
      meta: folderMeta,
    });
    expect(again.statusCode).toBe(403);
  });

  it('lets any member seal a folder again under a newer epoch (names rotate), never back to an older one', async () => {
    const r = await ring();
    const projets = await mkdir(r, r.alice, 'Projets', { path: '', id: '' });
    expect(projets.res.statusCode, projets.res.body).toBe(200);
    // A rotation: epoch 2. Zoé, who did not create the folder, opens the root and migrates it.
    expect((await r.owner.rotate()).statusCode).toBe(200);
    await r.zoe.loadKeys();
    const second = r.zoe.epochKeys.get(2)!;
    const newTag = await nameTag(await deriveNameTagKey(second), '', 'Projets');
    expect(newTag).not.toBe(projets.tag);
    const resealed = await sealFolder(r.zoe, second, projets.id, { name: 'Projets', parent: '', version: 2 });
    const moved = await r.zoe.call('POST', PATHS.renameFolder, {
      old_path: projets.tag,
      new_path: newTag,
      meta: resealed,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const [row] = (await list(r.alice)).folders;
    expect(row).toMatchObject({ id: projets.id, path: newTag, meta: resealed });
    // Read with epoch 2's key only: a member who holds only the new epoch reads it.
    const opened = await openFolderMeta({
      ringId: r.ringId,
      folderId: projets.id,
      epochKey: (epoch) => (epoch === 2 ? second : undefined),
      sealed: row!.meta!,
      signerKeys: signerKeysOf(r.alice),
    });
    expect(opened).toMatchObject({ signer: r.zoe.memberId, meta: { name: 'Projets', version: 2 } });
    // The same name is now a duplicate under the new epoch's tag.
    const again = await r.alice.call('POST', PATHS.mkdir, {
      parent: '',
      name: newTag,
      id: randomUUID(),
      meta: await sealFolder(r.alice, second, randomUUID(), { name: 'Projets', parent: '', version: 1 }),
    });
    expect(again.statusCode).toBe(409);
    // Neither an overwrite in the same epoch nor the old epoch's blob back (a downgrade) by Zoé.
    for (const meta of [
      await sealFolder(r.zoe, second, projets.id, { name: 'Autre', parent: '', version: 3 }),
      projets.meta,
    ]) {
      const res = await r.zoe.call('POST', PATHS.renameFolder, { old_path: newTag, new_path: '', meta });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(M.ownFoldersOnly);
    }
    expect((await list(r.alice)).folders[0]?.meta).toBe(resealed);
  });

  it('drops the metadata of a file renamed without it, and refuses malformed metadata', async () => {
    const r = await ring();
    const file = await upload(r, r.alice, 'devis.pdf', { path: '', id: '' });
    const bad = await r.alice.call('POST', PATHS.rename, {
      id: file.file.id,
      new_name: opaqueName(),
      meta: 'm2.1.0.alice.pas-du-tout.base64',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe(M.invalidMeta);
    expect((await list(r.alice)).files[0]?.meta).toBe(file.meta);
    const badFolder = await r.alice.call('POST', PATHS.mkdir, {
      parent: '',
      name: opaqueName(),
      id: 'pas-un-uuid',
    });
    expect(badFolder.statusCode).toBe(400);

    const res = await r.alice.call('POST', PATHS.rename, { id: file.file.id, new_name: opaqueName() });
    expect(res.statusCode).toBe(200);
    expect((await list(r.alice)).files[0]?.meta).toBeNull();
  });

  it('moves a file with metadata signed again by its uploader or a Ring admin, only to a newer version (issue 28)', async () => {
    const r = await ring();
    const root = { path: '', id: '' };
    const projets = await mkdir(r, r.alice, 'Projets', root);
    const inside = { path: projets.tag, id: projets.id };
    const sub = await mkdir(r, r.zoe, 'Devis', inside);
    expect(sub.res.statusCode, sub.res.body).toBe(200);
    const subPath = `${projets.tag}/${sub.tag}`;
    const file = await upload(r, r.alice, 'plan.pdf', root);
    const resealed = async (who: E2eeMember, folder: string, version: number) => {
      const by = await signer(who);
      return sealFileMeta({
        ringId: r.ringId,
        fileId: file.file.id,
        fileKey: file.fileKey,
        meta: {
          name: 'plan.pdf',
          type: 'application/pdf',
          folder,
          uploader: r.alice.memberId,
          version,
          content: null,
        },
        pin: by.pin,
        signer: by,
      });
    };
    const move = (who: E2eeMember, body: object) =>
      who.call('POST', PATHS.move, { id: file.file.id, ...body });

    // Every folder of the Ring, nested ones too, for the dialog.
    const all = await r.zoe.call('GET', PATHS.folders);
    expect(all.statusCode).toBe(200);
    expect(
      ZListFoldersResponse.parse(all.json())
        .folders.map((f) => f.id)
        .sort(),
    ).toEqual([projets.id, sub.id].sort());

    // Zoe neither uploaded it nor manages the Ring.
    const refused = await move(r.zoe, {
      folder: projets.tag,
      meta: await resealed(r.zoe, projets.id, 2),
      meta_version: 2,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe(M.ownFilesMoveOnly);
    // Bad input: a version 1 claim, a missing blob, a folder that does not exist.
    const v2 = await resealed(r.alice, projets.id, 2);
    expect((await move(r.alice, { folder: projets.tag, meta: v2, meta_version: 1 })).json().error).toBe(
      M.invalidMetaVersion,
    );
    expect((await move(r.alice, { folder: projets.tag, meta_version: 2 })).statusCode).toBe(400);
    const gone = await move(r.alice, { folder: opaqueName(), meta: v2, meta_version: 2 });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe(M.destinationGone);
    expect((await list(r.alice)).files.map((f) => f.meta)).toEqual([file.meta]);

    // The uploader moves it: the other member finds it there, its metadata naming the folder.
    const moved = await move(r.alice, { folder: projets.tag, meta: v2, meta_version: 2 });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(ZMoveFileResponse.parse(moved.json())).toMatchObject({ changed: true, message: M.moved });
    expect((await list(r.zoe)).files).toEqual([]);
    const [there] = (await list(r.zoe, projets.tag)).files;
    expect(there).toMatchObject({ id: file.file.id, meta: v2, folder: projets.tag });
    const opened = await openFileMeta({
      ringId: r.ringId,
      fileId: file.file.id,
      fileKey: file.fileKey,
      sealed: there!.meta!,
      signerKeys: signerKeysOf(r.zoe),
    });
    expect(opened).toMatchObject({ signer: r.alice.memberId, meta: { folder: projets.id, version: 2 } });

    // The same version again (a replay, or a concurrent move) is refused, nothing changes.
    const stale = await move(r.alice, { folder: '', meta: await resealed(r.alice, '', 2), meta_version: 2 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error).toBe(M.staleMetaVersion);
    expect((await list(r.zoe, projets.tag)).files.map((f) => f.meta)).toEqual([v2]);

    // The owner (a Ring manager) moves it further down, signing it himself.
    const v3 = await resealed(r.owner, sub.id, 3);
    const byOwner = await move(r.owner, { folder: subPath, meta: v3, meta_version: 3 });
    expect(byOwner.statusCode, byOwner.body).toBe(200);
    expect((await list(r.alice, subPath)).files.map((f) => f.meta)).toEqual([v3]);

    // A file from before the metadata is migrated first.
    const legacy = await upload(r, r.alice, 'ancien.pdf', root);
    await t.ctx.db.updateTable('ring_files').set({ meta: null }).where('id', '=', legacy.file.id).execute();
    const early = await r.alice.call('POST', PATHS.move, {
      id: legacy.file.id,
      folder: projets.tag,
      meta: legacy.meta,
      meta_version: 2,
    });
    expect(early.statusCode).toBe(409);
    expect(early.json().error).toBe(M.moveNeedsMeta);
  });
});
