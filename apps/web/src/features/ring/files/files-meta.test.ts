import type { TListFilesResponse, TRingFile, TRingFolder } from '@securering/contract';
import { type EpochKey, generateEpochKey, generateIdentity } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import { encryptFileNames, newFileKey } from './files-crypto';
import { migratePage, newFileFields, newFolderBody, readPage, type renamedFolderBody } from './files-meta';

const RING = 'ring-1';

async function setup() {
  const epochKey = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
  const alice = await generateIdentity();
  const signer = { memberId: 'alice', signingPrivateKey: alice.signing.privateKey };
  const ctx = {
    ringId: RING,
    namesKey: epochKey.namesKey,
    epochKey: (epoch: number) => (epoch === 1 ? epochKey : undefined),
    // The verified log: alice's key only.
    verifyKeysOf: async (memberId: string) => (memberId === 'alice' ? [alice.signing.publicKey] : []),
  };
  return { epochKey, signer, ctx };
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

async function fileRow(
  epochKey: EpochKey,
  signer: { memberId: string; signingPrivateKey: CryptoKey },
  name: string,
  folderId: string,
  folder = '',
) {
  const { fileId, fileKey, wrapped } = await newFileKey(epochKey, RING);
  const fields = await newFileFields({
    ringId: RING,
    fileId,
    fileKey,
    name,
    type: 'application/pdf',
    folderId,
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
    const projets = await newFolderBody({
      ringId: RING,
      epochKey,
      parentPath: '',
      parentId: '',
      name: 'Projets',
      signer,
    });
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
    const projets = await newFolderBody({
      ringId: RING,
      epochKey,
      parentPath: '',
      parentId: '',
      name: 'Projets',
      signer,
    });
    const archives = await newFolderBody({
      ringId: RING,
      epochKey,
      parentPath: '',
      parentId: '',
      name: 'Archives',
      signer,
    });
    const sub = await newFolderBody({
      ringId: RING,
      epochKey,
      parentPath: projets.name,
      parentId: projets.id,
      name: 'Sous-dossier',
      signer,
    });
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
    const { epochKey, ctx } = await setup();
    const mallory = await generateIdentity();
    // Signed by someone claiming to be alice, with a key the log does not know.
    const forged = await fileRow(
      epochKey,
      { memberId: 'alice', signingPrivateKey: mallory.signing.privateKey },
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
