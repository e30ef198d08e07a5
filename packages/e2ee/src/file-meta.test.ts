import { describe, expect, it } from 'vitest';
import { randomBytes } from './encoding';
import { generateEpochKey } from './epoch-keys';
import {
  META_BUCKETS,
  deriveNameTagKey,
  isSealedMeta,
  nameTag,
  openFileMeta,
  openFolderMeta,
  padMeta,
  sealFileMeta,
  sealFolderMeta,
  signerOfMeta,
} from './file-meta';
import { generateFileKey } from './file-stream';
import { generateIdentity } from './identity';
import { expectCode } from './test-support';

const RING = 'ring-1';

async function member(memberId: string) {
  const identity = await generateIdentity();
  return {
    memberId,
    signer: { memberId, signingPrivateKey: identity.signing.privateKey },
    verifyKey: identity.signing.publicKey,
  };
}

/** What the verified log says: each member's keys. */
const logOf =
  (...members: Array<{ memberId: string; verifyKey: CryptoKey }>) =>
  async (memberId: string) =>
    members.filter((m) => m.memberId === memberId).map((m) => m.verifyKey);

async function uploaded(alice: Awaited<ReturnType<typeof member>>, name: string, folder = '') {
  const fileId = crypto.randomUUID();
  const fileKey = generateFileKey();
  const sealed = await sealFileMeta({
    ringId: RING,
    fileId,
    fileKey,
    meta: { name, type: 'application/pdf', folder, uploader: alice.memberId },
    signer: alice.signer,
  });
  return { fileId, fileKey, sealed };
}

describe('file metadata (name, type, folder, uploader in one signed blob)', () => {
  it('round-trips and names its signer', async () => {
    const alice = await member('alice');
    const file = await uploaded(alice, 'contrat_signé.pdf', 'folder-1');
    expect(isSealedMeta(file.sealed)).toBe(true);
    expect(signerOfMeta(file.sealed)).toBe('alice');
    expect(file.sealed).not.toContain('contrat');
    const opened = await openFileMeta({ ringId: RING, ...file, verifyKeysOf: logOf(alice) });
    expect(opened).toEqual({
      signer: 'alice',
      meta: { name: 'contrat_signé.pdf', type: 'application/pdf', folder: 'folder-1', uploader: 'alice' },
    });
  });

  it('refuses a blob the server swapped from another file (review M3: names swapped)', async () => {
    const alice = await member('alice');
    const signed = await uploaded(alice, 'contrat_signé.pdf');
    const draft = await uploaded(alice, 'contrat_brouillon.pdf');
    const log = logOf(alice);
    // The server hands file A the name blob of file B: it opens for B only.
    await expectCode(
      openFileMeta({
        ringId: RING,
        fileId: signed.fileId,
        fileKey: signed.fileKey,
        sealed: draft.sealed,
        verifyKeysOf: log,
      }),
      'unverifiable',
    );
    // Even with the other file's key too (the whole row moved): bound to the file id.
    await expectCode(
      openFileMeta({
        ringId: RING,
        fileId: signed.fileId,
        fileKey: draft.fileKey,
        sealed: draft.sealed,
        verifyKeysOf: log,
      }),
      'unverifiable',
    );
    await expectCode(openFileMeta({ ringId: 'ring-2', ...signed, verifyKeysOf: log }), 'unverifiable');
  });

  it('refuses a signer the membership log does not give that key, and any altered byte', async () => {
    const alice = await member('alice');
    const mallory = await member('mallory');
    const file = await uploaded(alice, 'budget.xlsx');
    // The log knows mallory, not alice: alice's signature is not checked against mallory's key.
    await expectCode(openFileMeta({ ringId: RING, ...file, verifyKeysOf: logOf(mallory) }), 'unverifiable');
    // The server re-labels alice's blob as signed by mallory.
    const relabelled = file.sealed.replace('.alice.', '.mallory.');
    await expectCode(
      openFileMeta({ ringId: RING, ...file, sealed: relabelled, verifyKeysOf: logOf(alice, mallory) }),
      'unverifiable',
    );
    // A blob forged by a key outside the log.
    const forged = await sealFileMeta({
      ringId: RING,
      fileId: file.fileId,
      fileKey: file.fileKey,
      meta: { name: 'faux.pdf', type: '', folder: '', uploader: 'alice' },
      signer: (await member('alice')).signer,
    });
    await expectCode(
      openFileMeta({ ringId: RING, ...file, sealed: forged, verifyKeysOf: logOf(alice) }),
      'unverifiable',
    );
    const [format, signer, body, sig] = file.sealed.split('.') as [string, string, string, string];
    const flipped = body.slice(0, 10) + (body[10] === 'A' ? 'B' : 'A') + body.slice(11);
    await expectCode(
      openFileMeta({
        ringId: RING,
        ...file,
        sealed: [format, signer, flipped, sig].join('.'),
        verifyKeysOf: logOf(alice),
      }),
      'unverifiable',
    );
  });

  it('pads names to size buckets: short names of different lengths look the same', async () => {
    const alice = await member('alice');
    const short = await uploaded(alice, 'a.txt');
    const longer = await uploaded(alice, 'rapport_annuel_2026_version_finale.pdf');
    expect(short.sealed.length).toBe(longer.sealed.length);
    const long = await uploaded(alice, 'x'.repeat(200));
    expect(long.sealed.length).toBeGreaterThan(short.sealed.length);
    expect(padMeta('{}').length).toBe(META_BUCKETS[0]);
    expect(JSON.parse(new TextDecoder().decode(padMeta('{"a":1}')))).toEqual({ a: 1 });
  });

  it('refuses invalid names', async () => {
    const alice = await member('alice');
    for (const bad of ['', '.', '..', 'a/b', 'tab\there']) {
      await expect(uploaded(alice, bad)).rejects.toMatchObject({ code: 'invalid_format' });
    }
  });
});

describe('folder metadata (name and parent, signed)', () => {
  it('binds the name and the parent to the folder id', async () => {
    const alice = await member('alice');
    const namesKey = randomBytes(32);
    const seal = (folderId: string, name: string, parent: string) =>
      sealFolderMeta({ ringId: RING, folderId, namesKey, meta: { name, parent }, signer: alice.signer });
    const projets = await seal('f-1', 'Projets', '');
    const archives = await seal('f-2', 'Archives', 'f-1');
    const opened = await openFolderMeta({
      ringId: RING,
      folderId: 'f-2',
      namesKey,
      sealed: archives,
      verifyKeysOf: logOf(alice),
    });
    expect(opened.meta).toEqual({ name: 'Archives', parent: 'f-1' });
    // Swapped between folders: refused.
    await expectCode(
      openFolderMeta({
        ringId: RING,
        folderId: 'f-2',
        namesKey,
        sealed: projets,
        verifyKeysOf: logOf(alice),
      }),
      'unverifiable',
    );
  });
});

describe('lookup tags', () => {
  it('compare names within one parent and one epoch only', async () => {
    const first = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
    const second = await generateEpochKey({
      ringId: RING,
      epoch: 2,
      level: 'standard',
      namesKey: first.namesKey,
    });
    const key1 = await deriveNameTagKey(first);
    const key2 = await deriveNameTagKey(second);
    const tag = await nameTag(key1, '', 'Projets');
    expect(tag).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await nameTag(key1, '', 'Projets'.normalize('NFD'))).toBe(tag);
    expect(await nameTag(key1, 'f-1', 'Projets')).not.toBe(tag);
    expect(await nameTag(key1, '', 'projets')).not.toBe(tag);
    expect(await nameTag(key2, '', 'Projets')).not.toBe(tag);
  });
});
