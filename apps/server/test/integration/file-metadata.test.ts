import { randomUUID } from 'node:crypto';
import {
  RING_FILES_API_PATHS as PATHS,
  RING_FILES_MESSAGES as M,
  ZListFilesResponse,
  ZUploadFileResponse,
} from '@securering/contract';
import {
  deriveNameTagKey,
  encryptName,
  generateFileKey,
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
 * opaque blob per file (name, type, folder, uploader, under the file key, signed) and per folder
 * (name, parent), and lookup tags instead of names; the server stores and returns them with the
 * folder trail, and lets any member migrate an item that has none, never overwrite one.
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
    // What the verified membership log says: each member's Ed25519 key.
    const people = [owner, alice, zoe];
    const verifyKeysOf = async (memberId: string) =>
      people.filter((p) => p.memberId === memberId).map((p) => p.identity.signing.publicKey);
    return { ringId, owner, alice, zoe, epochKey, verifyKeysOf };
  }
  type Ring = Awaited<ReturnType<typeof ring>>;

  const signer = (m: E2eeMember) => ({
    memberId: m.memberId,
    signingPrivateKey: m.identity.signing.privateKey,
  });

  async function list(who: E2eeMember, folder = '') {
    const res = await who.call('GET', `${PATHS.list}?folder=${encodeURIComponent(folder)}`);
    expect(res.statusCode, res.body).toBe(200);
    return ZListFilesResponse.parse(res.json());
  }

  async function mkdir(r: Ring, who: E2eeMember, name: string, parent: { path: string; id: string }) {
    const id = randomUUID();
    const tag = await nameTag(await deriveNameTagKey(r.epochKey), parent.id, name);
    const meta = await sealFolderMeta({
      ringId: r.ringId,
      folderId: id,
      namesKey: r.epochKey.namesKey,
      meta: { name, parent: parent.id },
      signer: signer(who),
    });
    const res = await who.call('POST', PATHS.mkdir, { parent: parent.path, name: tag, id, meta });
    return { res, id, tag, meta };
  }

  async function upload(r: Ring, who: E2eeMember, name: string, folder: { path: string; id: string }) {
    const fileId = randomUUID();
    const fileKey = generateFileKey();
    const meta = await sealFileMeta({
      ringId: r.ringId,
      fileId,
      fileKey,
      meta: { name, type: 'application/pdf', folder: folder.id, uploader: who.memberId },
      signer: signer(who),
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
      namesKey: r.zoe.epochKeys.get(1)!.namesKey,
      sealed: top.folders[0]!.meta!,
      verifyKeysOf: r.verifyKeysOf,
    });
    expect(opened).toEqual({ signer: r.alice.memberId, meta: { name: 'Projets', parent: '' } });

    const page = await list(r.zoe, projets.tag);
    expect(page.trail).toMatchObject([{ id: projets.id, meta: projets.meta }]);
    const [file] = page.files;
    expect(file?.meta).toBe(contrat.meta);
    const meta = await openFileMeta({
      ringId: r.ringId,
      fileId: file!.id,
      fileKey: contrat.fileKey,
      sealed: file!.meta!,
      verifyKeysOf: r.verifyKeysOf,
    });
    expect(meta.meta).toEqual({
      name: 'contrat_signé.pdf',
      type: 'application/pdf',
      folder: projets.id,
      uploader: r.alice.memberId,
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
    const migrated = await sealFileMeta({
      ringId: r.ringId,
      fileId: legacy.file.id,
      fileKey: legacy.fileKey,
      meta: { name: 'ancien.pdf', type: '', folder: '', uploader: r.alice.memberId },
      signer: signer(r.zoe),
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
    const folderMeta = await sealFolderMeta({
      ringId: r.ringId,
      folderId: folderRow!.id,
      namesKey: r.epochKey.namesKey,
      meta: { name: 'Archives', parent: '' },
      signer: signer(r.zoe),
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

  it('drops the metadata of a file renamed without it, and refuses malformed metadata', async () => {
    const r = await ring();
    const file = await upload(r, r.alice, 'devis.pdf', { path: '', id: '' });
    const bad = await r.alice.call('POST', PATHS.rename, {
      id: file.file.id,
      new_name: opaqueName(),
      meta: 'm1.alice.pas-du-tout.base64',
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
});
