import type { TListFilesResponse, TRingFile, TRingFolder } from '@securering/contract';
import {
  type EpochKey,
  type Identity,
  type MembershipState,
  type SignedPin,
  createGenesis,
  createLink,
  exportPublicIdentity,
  generateEpochKey,
  generateIdentity,
  importVerifyKey,
  metaSignerKeys,
  verifyMembershipLog,
} from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import { encryptFileNames, newFileKey } from './files-crypto';
import {
  type MetaContext,
  type MetaSigner,
  META_TEXT,
  SeenVersions,
  migratePage,
  newFileFields,
  movedFileBody,
  newFolderBody,
  readFolderChoices,
  readPage,
  renamedFileBody,
  type renamedFolderBody,
} from './files-meta';

const RING = 'ring-1';
/** A signed content binding: 100 stored bytes (fileRow lists that size). */
const CONTENT = { size: 100, header: 'U1JGMQEJCAcGBQQD' };

const linkSigner = async (id: string, identity: Identity) => ({
  memberId: id,
  signingKey: identity.signing.privateKey,
  ed25519: (await exportPublicIdentity(identity)).ed25519,
});

/** A Ring whose verified log has alice (owner) and bob; the readers' context trusts that log. */
async function setup() {
  const epochKey = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard', logSeq: 1 });
  const [alice, bob] = await Promise.all([generateIdentity(), generateIdentity()]);
  const owner = await linkSigner('alice', alice);
  const genesis = await createGenesis({
    ringId: RING,
    owner: { id: 'alice', username: 'alice', keys: await exportPublicIdentity(alice) },
    level: 'standard',
    signer: owner,
  });
  let log: MembershipState = await verifyMembershipLog([genesis], { ringId: RING });
  const admission = await createLink(
    log,
    {
      type: 'admit',
      body: {
        member: { id: 'bob', username: 'bob', keys: await exportPublicIdentity(bob) },
        role: 'member',
        invitation: 'bob',
        shareHistory: false,
        shareFiles: true,
      },
    },
    owner,
  );
  log = await verifyMembershipLog([admission], { ringId: RING, from: log });
  const pinNow = (epoch = 1) => ({ epoch, logSeq: log.head.seq, logHash: log.head.hash });
  const signerOf = (memberId: string, identity: Identity, epoch = 1): MetaSigner => ({
    memberId,
    signingPrivateKey: identity.signing.privateKey,
    pin: pinNow(epoch),
  });
  const signer = signerOf('alice', alice);
  const ctx: MetaContext = {
    ringId: RING,
    namesKey: epochKey.namesKey,
    epochKey: (epoch: number) => (epoch === 1 ? epochKey : undefined),
    // What the reader's browser asks its verified log.
    signerKeys: async (pin: SignedPin) =>
      Promise.all(metaSignerKeys(log, pin).map((k) => importVerifyKey(k))),
    versions: new SeenVersions(),
  };
  const removeBob = async () => {
    const link = await createLink(log, { type: 'deactivate', body: { memberId: 'bob' } }, owner);
    log = await verifyMembershipLog([link], { ringId: RING, from: log });
  };
  return { epochKey, signer, ctx, bob: () => signerOf('bob', bob), removeBob };
}

function folderRow(body: { name: string; id: string; meta: string }, parentPath = ''): TRingFolder {
  return {
    id: body.id,
    path: parentPath === '' ? body.name : `${parentPath}/${body.name}`,
    name: body.name,
    created_at: '2026-11-29T10:00:00.000Z',
    can_manage: true,
    meta: body.meta,
  };
}

/** A folder body created at the root of the Ring. */
function rootFolder(epochKey: EpochKey, signer: MetaSigner, name: string) {
  return newFolderBody({ ringId: RING, epochKey, parentPath: '', parentId: '', name, signer });
}

/** A folder body created in `parent`, whose path is `parentPath` (its name for a root folder). */
function subFolder(
  epochKey: EpochKey,
  signer: MetaSigner,
  parent: { id: string; name: string },
  name: string,
  parentPath = parent.name,
) {
  return newFolderBody({ ringId: RING, epochKey, parentPath, parentId: parent.id, name, signer });
}

async function fileRow(epochKey: EpochKey, signer: MetaSigner, name: string, folderId: string, folder = '') {
  const { fileId, fileKey, wrapped } = await newFileKey(epochKey, RING);
  const fields = await newFileFields({
    ringId: RING,
    fileId,
    fileKey,
    name,
    type: 'application/pdf',
    folderId,
    content: CONTENT,
    signer,
  });
  const file: TRingFile = {
    id: fileId,
    name: fields.name,
    extension: '',
    original_name: fields.original_name,
    size_bytes: 100,
    uploaded_at: '2026-11-29T10:00:00.000Z',
    updated_at: '2026-11-29T10:00:00.000Z',
    folder,
    file_key: wrapped,
    key_epoch: 1,
    key_wraps: [],
    uploaded_by: signer.memberId,
    can_manage: true,
    meta: fields.meta,
  };
  return file;
}

const pageOf = (parts: Partial<TListFilesResponse>): TListFilesResponse => ({
  success: true,
  files: [],
  folders: [],
  folder: '',
  trail: [],
  storage: { allocated: 1, used: 0, remaining: 1 },
  max_file_size_mb: 10,
  max_file_bytes: 1,
  ...parts,
});

describe('the files tab trusts signed metadata, not the server (issue 27, review M3)', () => {
  it('shows the signed names of files and folders, and their folder', async () => {
    const { epochKey, signer, ctx } = await setup();
    const projets = await rootFolder(epochKey, signer, 'Projets');
    const file = await fileRow(epochKey, signer, 'contrat_signé.pdf', projets.id, projets.name);
    const inside = await readPage(
      pageOf({ folder: projets.name, trail: [folderRow(projets)], files: [file] }),
      ctx,
    );
    expect(inside.folderId).toBe(projets.id);
    expect(inside.trail).toMatchObject([{ name: 'Projets', status: 'verified' }]);
    expect(inside.files.get(file.id)).toMatchObject({
      name: 'contrat_signé.pdf',
      status: 'verified',
      uploader: 'alice',
    });
    const root = await readPage(pageOf({ folders: [folderRow(projets)] }), ctx);
    expect(root.folders.get(projets.id)).toMatchObject({ name: 'Projets', status: 'verified' });
  });

  it('flags names the server swapped between two files: neither is shown', async () => {
    const { epochKey, signer, ctx } = await setup();
    const signed = await fileRow(epochKey, signer, 'contrat_signé.pdf', '');
    const draft = await fileRow(epochKey, signer, 'contrat_brouillon.pdf', '');
    const swapped = [
      { ...signed, meta: draft.meta },
      { ...draft, meta: signed.meta },
    ];
    const read = await readPage(pageOf({ files: swapped }), ctx);
    for (const file of swapped)
      expect(read.files.get(file.id)).toEqual({ name: undefined, status: 'unverifiable' });
  });

  it('flags a file or a folder the server moved into another folder', async () => {
    const { epochKey, signer, ctx } = await setup();
    const projets = await rootFolder(epochKey, signer, 'Projets');
    const archives = await rootFolder(epochKey, signer, 'Archives');
    const sub = await subFolder(epochKey, signer, projets, 'Sous-dossier');
    const file = await fileRow(epochKey, signer, 'contrat_signé.pdf', projets.id, projets.name);
    // The server lists Projets' file and subfolder under Archives.
    const read = await readPage(
      pageOf({
        folder: archives.name,
        trail: [folderRow(archives)],
        files: [file],
        folders: [folderRow(sub, archives.name)],
      }),
      ctx,
    );
    expect(read.files.get(file.id)).toMatchObject({ name: 'contrat_signé.pdf', status: 'misplaced' });
    expect(read.folders.get(sub.id)).toMatchObject({ name: 'Sous-dossier', status: 'misplaced' });
    // A folder put under another parent in the trail.
    const trail = await readPage(
      pageOf({ trail: [folderRow(archives), folderRow(sub, archives.name)] }),
      ctx,
    );
    expect(trail.trail.map((t) => t.status)).toEqual(['verified', 'misplaced']);
  });

  it('refuses metadata signed by a key the membership log does not give its signer', async () => {
    const { epochKey, ctx, signer } = await setup();
    const mallory = await generateIdentity();
    // Signed by someone claiming to be alice, with a key the log does not know.
    const forged = await fileRow(
      epochKey,
      { memberId: 'alice', signingPrivateKey: mallory.signing.privateKey, pin: signer.pin },
      'faux.pdf',
      '',
    );
    const read = await readPage(pageOf({ files: [forged] }), ctx);
    expect(read.files.get(forged.id)).toEqual({ name: undefined, status: 'unverifiable' });
  });

  it('flags nothing for a file whose key this member does not hold yet', async () => {
    const { epochKey, signer, ctx } = await setup();
    const file = await fileRow(epochKey, signer, 'plus_tard.pdf', '');
    const read = await readPage(pageOf({ files: [file] }), { ...ctx, epochKey: () => undefined });
    expect(read.files.get(file.id)).toEqual({ name: undefined, status: 'no_key' });
  });

  it('migrates older files and folders, signed by the member who opens the folder', async () => {
    const { epochKey, signer, ctx } = await setup();
    const legacyFile = await fileRow(epochKey, signer, 'x.pdf', '');
    const names = encryptFileNames(epochKey.namesKey, RING, 'ancien.pdf');
    const oldFile: TRingFile = { ...legacyFile, ...names, meta: null, uploaded_by: 'bob' };
    const segment = encryptFileNames(epochKey.namesKey, RING, 'Archives').name;
    const oldFolder: TRingFolder = { ...folderRow({ name: segment, id: 'f-old', meta: '' }), meta: null };
    const page = pageOf({ files: [oldFile], folders: [oldFolder] });
    const read = await readPage(page, ctx);
    expect(read.files.get(oldFile.id)).toMatchObject({ name: 'ancien.pdf', status: 'legacy' });
    expect(read.folders.get('f-old')).toMatchObject({ name: 'Archives', status: 'legacy' });

    const renames: Array<{ id: string; meta: string }> = [];
    const folderMoves: Array<Awaited<ReturnType<typeof renamedFolderBody>>> = [];
    const changed = await migratePage(page, read, {
      ringId: RING,
      epochKey,
      signer,
      api: {
        rename: async (body) => void renames.push(body),
        renameFolder: async (body) => void folderMoves.push(body),
      },
    });
    expect(changed).toBe(2);
    const after = await readPage(
      pageOf({
        files: [{ ...oldFile, meta: renames[0]!.meta }],
        folders: [{ ...oldFolder, path: folderMoves[0]!.new_path, meta: folderMoves[0]!.meta }],
      }),
      ctx,
    );
    // The uploader stays the one the server named; the signature is the migrating member's.
    expect(after.files.get(oldFile.id)).toMatchObject({
      name: 'ancien.pdf',
      status: 'verified',
      uploader: 'bob',
    });
    expect(after.folders.get('f-old')).toMatchObject({ name: 'Archives', status: 'verified' });
    expect(folderMoves[0]!.old_path).toBe(segment);
    expect(folderMoves[0]!.new_path).not.toBe(segment);
  });
});

describe('replays, removed signers and rotated folder names (issue 27, M3 follow-up)', () => {
  it('flags an older version of a file’s metadata the server serves after a newer one (« Version périmée »)', async () => {
    const { epochKey, signer, ctx } = await setup();
    const file = await fileRow(epochKey, signer, 'brouillon.pdf', '');
    const first = await readPage(pageOf({ files: [file] }), ctx);
    expect(first.files.get(file.id)).toMatchObject({ name: 'brouillon.pdf', status: 'verified', version: 1 });
    const renamed = await renamedFileBody({
      ringId: RING,
      file,
      read: first.files.get(file.id)!,
      name: 'final.pdf',
      folderId: '',
      signer,
    });
    const now = await readPage(pageOf({ files: [{ ...file, meta: renamed.meta }] }), ctx);
    expect(now.files.get(file.id)).toMatchObject({ name: 'final.pdf', status: 'verified', version: 2 });
    // The server serves the first blob again (validly signed, same file id): flagged, not trusted.
    const replayed = await readPage(pageOf({ files: [file] }), ctx);
    expect(replayed.files.get(file.id)).toMatchObject({ status: 'replayed', version: 1 });
    expect(META_TEXT.replayed).toMatch(/^Version périmée\u202f: /);
    // Remembered across tabs of this browser (local storage).
    const storage = new Map<string, string>();
    const store = {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
    };
    new SeenVersions(store, 'k').check(file.id, 2);
    expect(new SeenVersions(store, 'k').check(file.id, 1)).toBe(false);
  });

  it('flags a file whose listed size is not the signed one', async () => {
    const { epochKey, signer, ctx } = await setup();
    const file = await fileRow(epochKey, signer, 'devis.pdf', '');
    const read = await readPage(pageOf({ files: [{ ...file, size_bytes: 5000 }] }), ctx);
    expect(read.files.get(file.id)).toMatchObject({ name: 'devis.pdf', status: 'altered' });
  });

  it('refuses metadata a removed member signed after its removal, keeps what it signed before', async () => {
    const { epochKey, ctx, bob, removeBob } = await setup();
    const before = await fileRow(epochKey, bob(), 'avant.pdf', '');
    await removeBob();
    const after = await fileRow(epochKey, bob(), 'après.pdf', '');
    const read = await readPage(pageOf({ files: [before, after] }), ctx);
    expect(read.files.get(before.id)).toMatchObject({ name: 'avant.pdf', status: 'verified' });
    expect(read.files.get(after.id)).toEqual({ name: undefined, status: 'unverifiable' });
  });

  it('seals folder names again under the new epoch after a rotation, with a new tag', async () => {
    const { epochKey, signer, ctx } = await setup();
    const projets = await rootFolder(epochKey, signer, 'Projets');
    const row = folderRow(projets);
    const page = pageOf({ folders: [row] });
    const second = await generateEpochKey({
      ringId: RING,
      epoch: 2,
      level: 'standard',
      namesKey: epochKey.namesKey,
      logSeq: 1,
    });
    // A member holding only the new epoch cannot read the old sealing.
    const newcomer = {
      ...ctx,
      epochKey: (e: number) => (e === 2 ? second : undefined),
      versions: new SeenVersions(),
    };
    expect((await readPage(page, newcomer)).folders.get(projets.id)).toEqual({
      name: undefined,
      status: 'no_key',
    });
    // Alice, holding both, opens the root: the folder is sealed again in epoch 2.
    const both = { ...ctx, epochKey: (e: number) => [epochKey, second].find((k) => k.epoch === e) };
    const read = await readPage(page, both);
    expect(read.folders.get(projets.id)).toMatchObject({ status: 'verified', epoch: 1, version: 1 });
    const moves: Array<Awaited<ReturnType<typeof renamedFolderBody>>> = [];
    const changed = await migratePage(page, read, {
      ringId: RING,
      epochKey: second,
      signer: { ...signer, pin: { ...signer.pin, epoch: 2 } },
      api: { rename: async () => undefined, renameFolder: async (body) => void moves.push(body) },
    });
    expect(changed).toBe(1);
    expect(moves[0]!.old_path).toBe(projets.name);
    expect(moves[0]!.new_path).not.toBe(projets.name);
    const after = await readPage(
      pageOf({ folders: [{ ...row, path: moves[0]!.new_path, meta: moves[0]!.meta }] }),
      newcomer,
    );
    expect(after.folders.get(projets.id)).toMatchObject({
      name: 'Projets',
      status: 'verified',
      epoch: 2,
      version: 2,
    });
    // Already in the current epoch: nothing more to do.
    const again = await migratePage(pageOf({ folders: [{ ...row, meta: moves[0]!.meta }] }), after, {
      ringId: RING,
      epochKey: second,
      signer,
      api: { rename: async () => undefined, renameFolder: async () => undefined },
    });
    expect(again).toBe(0);
  });
});

describe('« Déplacer »: a move is signed again, a move the server makes alone is flagged (issue 28)', () => {
  it('verifies in the new folder after a signed move; moved back by the server alone, or replayed, it is flagged', async () => {
    const { epochKey, signer, ctx, bob } = await setup();
    const projets = await rootFolder(epochKey, signer, 'Projets');
    const file = await fileRow(epochKey, signer, 'contrat_signé.pdf', '');
    const atRoot = await readPage(pageOf({ files: [file] }), ctx);
    const item = atRoot.files.get(file.id)!;
    expect(item).toMatchObject({ status: 'verified', version: 1 });

    // Bob (a Ring admin in this story) moves it into Projets: the next version, his signature.
    const body = await movedFileBody({
      ringId: RING,
      file,
      read: item,
      folderPath: projets.name,
      folderId: projets.id,
      signer: bob(),
    });
    expect(body).toMatchObject({ id: file.id, folder: projets.name, meta_version: 2 });
    const moved: TRingFile = { ...file, folder: projets.name, meta: body.meta };
    const inside = await readPage(
      pageOf({ folder: projets.name, trail: [folderRow(projets)], files: [moved] }),
      ctx,
    );
    expect(inside.files.get(file.id)).toMatchObject({
      name: 'contrat_signé.pdf',
      status: 'verified',
      version: 2,
      uploader: 'alice',
      content: CONTENT,
    });

    // The server puts it back at the root by itself, keeping the new metadata: not where it was signed.
    const back = await readPage(pageOf({ files: [{ ...moved, folder: '' }] }), ctx);
    expect(back.files.get(file.id)?.status).toBe('misplaced');
    expect(META_TEXT.misplaced).toMatch(/Emplacement non vérifié/);
    // …or with the metadata from before the move: an older version than this browser saw.
    const replayed = await readPage(pageOf({ files: [file] }), ctx);
    expect(replayed.files.get(file.id)?.status).toBe('replayed');
  });

  it('refuses to seal a move of a file whose metadata did not verify here', async () => {
    const { epochKey, signer, ctx } = await setup();
    const file = await fileRow(epochKey, signer, 'devis.pdf', '');
    const read = await readPage(pageOf({ files: [file] }), ctx);
    for (const status of ['misplaced', 'unverifiable', 'replayed', 'legacy'] as const)
      await expect(
        movedFileBody({
          ringId: RING,
          file,
          read: { ...read.files.get(file.id)!, status },
          folderPath: '',
          folderId: '',
          signer,
        }),
      ).rejects.toThrow('not verified');
  });

  it('lists as destinations only folders whose signed parents chain up to the root, as a tree', async () => {
    const { epochKey, signer, ctx } = await setup();
    const projets = await rootFolder(epochKey, signer, 'Projets');
    const archives = await rootFolder(epochKey, signer, 'Archives');
    const sub = await subFolder(epochKey, signer, projets, 'Devis');
    const deeper = await subFolder(epochKey, signer, sub, 'Signés', `${projets.name}/${sub.name}`);
    const rows = [
      folderRow(projets),
      folderRow(archives),
      folderRow(sub, projets.name),
      folderRow(deeper, `${projets.name}/${sub.name}`),
    ];
    const choices = await readFolderChoices(rows, ctx);
    expect(choices.map((c) => c.names.join('/'))).toEqual([
      'Archives',
      'Projets',
      'Projets/Devis',
      'Projets/Devis/Signés',
    ]);
    // The server files Devis (and so what is below it) under Archives: left out.
    const moved = [
      folderRow(projets),
      folderRow(archives),
      folderRow(sub, archives.name),
      folderRow(deeper, `${archives.name}/${sub.name}`),
    ];
    expect((await readFolderChoices(moved, ctx)).map((c) => c.names.join('/'))).toEqual([
      'Archives',
      'Projets',
    ]);
  });
});
