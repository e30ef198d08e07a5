import { describe, expect, it } from 'vitest';
import { type EpochKey, generateEpochKey } from './epoch-keys';
import {
  type MetaPin,
  type SignedPin,
  META_BUCKETS,
  bindContent,
  contentBinding,
  deriveNameTagKey,
  isSealedMeta,
  nameTag,
  openFileMeta,
  openFolderMeta,
  padMeta,
  pinOfMeta,
  sealFileMeta,
  sealFolderMeta,
  signerOfMeta,
} from './file-meta';
import { createFileEncryptor, generateFileKey } from './file-stream';
import { metaSignerKeys } from './meta-pin';
import { type Identity, exportPublicIdentity, generateIdentity, importVerifyKey } from './identity';
import {
  type LinkSigner,
  type MembershipChange,
  type MembershipState,
  createGenesis,
  createLink,
  verifyMembershipLog,
} from './membership-log';
import { expectCode } from './test-support';

const RING = 'ring-1';

interface Person {
  memberId: string;
  identity: Identity;
  keys: Awaited<ReturnType<typeof exportPublicIdentity>>;
  signer: { memberId: string; signingPrivateKey: CryptoKey };
  linkSigner: LinkSigner;
}

async function person(memberId: string): Promise<Person> {
  const identity = await generateIdentity();
  const keys = await exportPublicIdentity(identity);
  return {
    memberId,
    identity,
    keys,
    signer: { memberId, signingPrivateKey: identity.signing.privateKey },
    linkSigner: { memberId, signingKey: identity.signing.privateKey, ed25519: keys.ed25519 },
  };
}

/** A verified membership log, built link by link as a browser checks it. */
class Log {
  state!: MembershipState;

  static async of(owner: Person): Promise<Log> {
    const log = new Log();
    const genesis = await createGenesis({
      ringId: RING,
      owner: { id: owner.memberId, username: owner.memberId, keys: owner.keys },
      level: 'standard',
      signer: owner.linkSigner,
    });
    log.state = await verifyMembershipLog([genesis], { ringId: RING });
    return log;
  }

  async append(change: Exclude<MembershipChange, { type: 'genesis' }>, by: Person): Promise<void> {
    const link = await createLink(this.state, change, by.linkSigner);
    this.state = await verifyMembershipLog([link], { ringId: RING, from: this.state });
  }

  admit(newcomer: Person, by: Person) {
    return this.append(
      {
        type: 'admit',
        body: {
          member: { id: newcomer.memberId, username: newcomer.memberId, keys: newcomer.keys },
          role: 'member',
          invitation: newcomer.memberId,
          shareHistory: false,
          shareFiles: true,
        },
      },
      by,
    );
  }

  /** The pin of the head now, in `epoch`. */
  pin(epoch = 1): MetaPin {
    return { epoch, logSeq: this.state.head.seq, logHash: this.state.head.hash };
  }

  /** What a reader's browser asks: the keys this log gives the signer at the blob's pin. */
  signerKeys = (pin: SignedPin): Promise<CryptoKey[]> =>
    Promise.all(metaSignerKeys(this.state, pin).map((k) => importVerifyKey(k)));
}

async function ringOf(...memberIds: string[]) {
  const [owner, ...others] = await Promise.all(['alice', ...memberIds].map(person));
  const log = await Log.of(owner!);
  for (const other of others) await log.admit(other, owner!);
  return { alice: owner!, others, log };
}

const HEADER = new Uint8Array([0x53, 0x52, 0x46, 0x31, 1, 9, 8, 7, 6, 5, 4, 3]);

async function uploaded(
  who: Person,
  pin: MetaPin,
  name: string,
  extra: { folder?: string; version?: number; fileId?: string; fileKey?: Uint8Array } = {},
) {
  const fileId = extra.fileId ?? crypto.randomUUID();
  const fileKey = extra.fileKey ?? generateFileKey();
  const sealed = await sealFileMeta({
    ringId: RING,
    fileId,
    fileKey,
    meta: {
      name,
      type: 'application/pdf',
      folder: extra.folder ?? '',
      uploader: who.memberId,
      version: extra.version ?? 1,
      content: contentBinding(HEADER, 1040),
    },
    pin,
    signer: who.signer,
  });
  return { fileId, fileKey, sealed };
}

describe('file metadata (name, type, folder, uploader, version, content in one signed blob)', () => {
  it('round-trips and names its signer and the log position it was signed at', async () => {
    const { alice, log } = await ringOf();
    const file = await uploaded(alice, log.pin(), 'contrat_signé.pdf', { folder: 'folder-1' });
    expect(isSealedMeta(file.sealed)).toBe(true);
    expect(signerOfMeta(file.sealed)).toBe('alice');
    expect(pinOfMeta(file.sealed)).toEqual({ signer: 'alice', ...log.pin() });
    expect(file.sealed).not.toContain('contrat');
    const opened = await openFileMeta({ ringId: RING, ...file, signerKeys: log.signerKeys });
    expect(opened).toEqual({
      signer: 'alice',
      pin: log.pin(),
      meta: {
        name: 'contrat_signé.pdf',
        type: 'application/pdf',
        folder: 'folder-1',
        uploader: 'alice',
        version: 1,
        content: { size: 1040, header: 'U1JGMQEJCAcGBQQD' },
      },
    });
  });

  it('refuses a blob the server swapped from another file (review M3: names swapped)', async () => {
    const { alice, log } = await ringOf();
    const signed = await uploaded(alice, log.pin(), 'contrat_signé.pdf');
    const draft = await uploaded(alice, log.pin(), 'contrat_brouillon.pdf');
    const open = (fileKey: Uint8Array, sealed: string, ringId = RING) =>
      openFileMeta({ ringId, fileId: signed.fileId, fileKey, sealed, signerKeys: log.signerKeys });
    // The server hands file A the name blob of file B: it opens for B only.
    await expectCode(open(signed.fileKey, draft.sealed), 'unverifiable');
    // Even with the other file's key too (the whole row moved): bound to the file id.
    await expectCode(open(draft.fileKey, draft.sealed), 'unverifiable');
    await expectCode(open(signed.fileKey, signed.sealed, 'ring-2'), 'unverifiable');
  });

  it('signs the version: an older blob of the same file cannot pass for a newer one', async () => {
    const { alice, log } = await ringOf();
    const first = await uploaded(alice, log.pin(), 'brouillon.pdf');
    const renamed = await uploaded(alice, log.pin(), 'final.pdf', { ...first, version: 2 });
    const open = (sealed: string) =>
      openFileMeta({ ringId: RING, ...first, sealed, signerKeys: log.signerKeys });
    expect((await open(first.sealed)).meta.version).toBe(1);
    expect((await open(renamed.sealed)).meta.version).toBe(2);
    // The version is inside the signed, encrypted part: no byte of it can be changed.
    const parts = first.sealed.split('.');
    const body = parts[5]!;
    for (const at of [20, 200, body.length - 5]) {
      const flipped = body.slice(0, at) + (body[at] === 'A' ? 'B' : 'A') + body.slice(at + 1);
      await expectCode(open([...parts.slice(0, 5), flipped, parts[6]].join('.')), 'unverifiable');
    }
    await expect(uploaded(alice, log.pin(), 'x.pdf', { version: 0 })).rejects.toMatchObject({
      code: 'invalid_format',
    });
  });

  it('pads names to size buckets: short names of different lengths look the same', async () => {
    const { alice, log } = await ringOf();
    const short = await uploaded(alice, log.pin(), 'a.txt');
    const longer = await uploaded(alice, log.pin(), 'rapport_annuel_2026_version_finale.pdf');
    expect(short.sealed.length).toBe(longer.sealed.length);
    const long = await uploaded(alice, log.pin(), 'x'.repeat(200));
    expect(long.sealed.length).toBeGreaterThan(short.sealed.length);
    expect(padMeta('{}').length).toBe(META_BUCKETS[0]);
    expect(JSON.parse(new TextDecoder().decode(padMeta('{"a":1}')))).toEqual({ a: 1 });
    // The longest name in the largest bucket still fits the wire limit.
    const longest = await uploaded(alice, log.pin(), '€'.repeat(255));
    expect(isSealedMeta(longest.sealed)).toBe(true);
  });

  it('refuses invalid names', async () => {
    const { alice, log } = await ringOf();
    for (const bad of ['', '.', '..', 'a/b', 'tab\there']) {
      await expect(uploaded(alice, log.pin(), bad)).rejects.toMatchObject({ code: 'invalid_format' });
    }
  });
});

describe('the signer pinned to a membership-log position (review M3: uploader not pinned)', () => {
  it('accepts a member’s blob signed while it was a member, refuses one pinned after its removal', async () => {
    const { alice, others, log } = await ringOf('bob');
    const bob = others[0]!;
    const whileMember = await uploaded(bob, log.pin(), 'avant.pdf');
    await log.append({ type: 'deactivate', body: { memberId: 'bob' } }, alice);
    // Still verifiable after bob left: it was signed while he was a member.
    expect((await openFileMeta({ ringId: RING, ...whileMember, signerKeys: log.signerKeys })).signer).toBe(
      'bob',
    );
    // Bob (or the server with bob's key) signs at the log head after his removal: refused.
    const afterRemoval = await uploaded(bob, log.pin(), 'après.pdf');
    await expectCode(
      openFileMeta({ ringId: RING, ...afterRemoval, signerKeys: log.signerKeys }),
      'unverifiable',
    );
  });

  it('refuses a key the log never gave the signer, a pin before its admission and a forked log', async () => {
    const { alice, others, log } = await ringOf('bob');
    const bob = others[0]!;
    // Mallory is not in the log; a blob relabelled from mallory to alice does not verify either.
    const mallory = await person('mallory');
    const byMallory = await uploaded(mallory, log.pin(), 'faux.pdf');
    await expectCode(
      openFileMeta({ ringId: RING, ...byMallory, signerKeys: log.signerKeys }),
      'unverifiable',
    );
    const relabelled = byMallory.sealed.replace('.mallory.', '.alice.');
    await expectCode(
      openFileMeta({ ringId: RING, ...byMallory, sealed: relabelled, signerKeys: log.signerKeys }),
      'unverifiable',
    );
    // A key made up under alice's name (the server's own key): not hers in the log.
    const impostor = await person('alice');
    const forged = await uploaded(impostor, log.pin(), 'faux.pdf');
    await expectCode(openFileMeta({ ringId: RING, ...forged, signerKeys: log.signerKeys }), 'unverifiable');
    // Bob signs claiming the genesis position, before he was admitted.
    const backdated = await uploaded(
      bob,
      { epoch: 1, logSeq: 0, logHash: log.state.hashes[0]! },
      'vieux.pdf',
    );
    await expectCode(
      openFileMeta({ ringId: RING, ...backdated, signerKeys: log.signerKeys }),
      'unverifiable',
    );
    // A pin whose hash is not the verified log's at that seq (a fork shown to the signer).
    const forked = await uploaded(alice, { ...log.pin(), logHash: 'ab'.repeat(32) }, 'fork.pdf');
    await expectCode(openFileMeta({ ringId: RING, ...forked, signerKeys: log.signerKeys }), 'unverifiable');
    // A pin beyond the head this browser verified: no key until it reads the log again.
    const ahead = await uploaded(alice, { ...log.pin(), logSeq: log.state.head.seq + 1 }, 'futur.pdf');
    await expectCode(openFileMeta({ ringId: RING, ...ahead, signerKeys: log.signerKeys }), 'unverifiable');
  });

  it('verifies with the key current at the pin: a replaced key signs nothing newer', async () => {
    const { alice, log } = await ringOf('bob');
    const before = await uploaded(alice, log.pin(), 'avant.pdf');
    const aliceNew = await person('alice');
    await log.append({ type: 'key_change', body: { memberId: 'alice', keys: aliceNew.keys } }, alice);
    expect((await openFileMeta({ ringId: RING, ...before, signerKeys: log.signerKeys })).signer).toBe(
      'alice',
    );
    const stolen = await uploaded(alice, log.pin(), 'volé.pdf');
    await expectCode(openFileMeta({ ringId: RING, ...stolen, signerKeys: log.signerKeys }), 'unverifiable');
    const fresh = await uploaded(aliceNew, log.pin(), 'nouveau.pdf');
    expect((await openFileMeta({ ringId: RING, ...fresh, signerKeys: log.signerKeys })).meta.name).toBe(
      'nouveau.pdf',
    );
  });

  it('refuses a pin older than the epoch the file key was wrapped in', async () => {
    const { alice, log } = await ringOf('bob');
    const old = await uploaded(alice, { epoch: 1, logSeq: 0, logHash: log.state.hashes[0]! }, 'a.pdf');
    await expectCode(
      openFileMeta({ ringId: RING, ...old, signerKeys: log.signerKeys, minLogSeq: 1 }),
      'unverifiable',
    );
    expect(
      (await openFileMeta({ ringId: RING, ...old, signerKeys: log.signerKeys, minLogSeq: 0 })).signer,
    ).toBe('alice');
  });
});

describe('content binding', () => {
  const streamOf = (...chunks: Uint8Array[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    let total = 0;
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) total += read.value.length;
    return total;
  };

  it('passes the signed bytes and refuses another file’s or a cut or padded one', async () => {
    const encryptor = await createFileEncryptor(generateFileKey());
    const other = await createFileEncryptor(generateFileKey());
    const body = new Uint8Array(100).fill(7);
    const binding = contentBinding(encryptor.header, 112);
    // Split anywhere, even inside the header.
    expect(
      await drain(
        bindContent(streamOf(encryptor.header.slice(0, 5), encryptor.header.slice(5), body), binding),
      ),
    ).toBe(112);
    await expectCode(drain(bindContent(streamOf(other.header, body), binding)), 'unverifiable');
    await expectCode(drain(bindContent(streamOf(encryptor.header, body.slice(1)), binding)), 'unverifiable');
    await expectCode(
      drain(bindContent(streamOf(encryptor.header, body, new Uint8Array(1)), binding)),
      'unverifiable',
    );
  });
});

describe('folder metadata (name, parent and version, sealed under an epoch key)', () => {
  async function epochs() {
    const first = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard', logSeq: 0 });
    const second = await generateEpochKey({
      ringId: RING,
      epoch: 2,
      level: 'standard',
      namesKey: first.namesKey,
      logSeq: 1,
    });
    return { first, second };
  }
  const keysOf =
    (...held: EpochKey[]) =>
    (epoch: number) =>
      held.find((k) => k.epoch === epoch);

  it('binds the name and the parent to the folder id', async () => {
    const { alice, log } = await ringOf();
    const { first } = await epochs();
    const seal = (folderId: string, name: string, parent: string) =>
      sealFolderMeta({
        ringId: RING,
        folderId,
        epochKey: first,
        meta: { name, parent, version: 1 },
        pin: log.pin(),
        signer: alice.signer,
      });
    const projets = await seal('f-1', 'Projets', '');
    const archives = await seal('f-2', 'Archives', 'f-1');
    const open = (sealed: string) =>
      openFolderMeta({
        ringId: RING,
        folderId: 'f-2',
        epochKey: keysOf(first),
        sealed,
        signerKeys: log.signerKeys,
      });
    expect((await open(archives)).meta).toEqual({ name: 'Archives', parent: 'f-1', version: 1 });
    // Swapped between folders: refused.
    await expectCode(open(projets), 'unverifiable');
  });

  it('rotates with epochs: a folder sealed in epoch 1 needs epoch 1’s key, not the constant names key', async () => {
    const { alice, others, log } = await ringOf('bob');
    const { first, second } = await epochs();
    const sealed = await sealFolderMeta({
      ringId: RING,
      folderId: 'f-1',
      epochKey: first,
      meta: { name: 'Projets', parent: '', version: 1 },
      pin: log.pin(),
      signer: alice.signer,
    });
    expect(pinOfMeta(sealed)?.epoch).toBe(1);
    const open = (epochKey: (epoch: number) => EpochKey | undefined) =>
      openFolderMeta({ ringId: RING, folderId: 'f-1', epochKey, sealed, signerKeys: log.signerKeys });
    expect((await open(keysOf(first))).meta.name).toBe('Projets');
    // A member who holds only epoch 2 (same names key) cannot read it until someone re-seals it.
    await expectCode(open(keysOf(second)), 'missing_key');
    // Handed epoch 2's key as if it were epoch 1's: it does not open (the key is per epoch).
    await expectCode(
      open((epoch) => (epoch === 1 ? { ...second, epoch: 1 } : undefined)),
      'unverifiable',
    );
    // Re-sealed in epoch 2 by another member (the migration after a rotation): version 2.
    const resealed = await sealFolderMeta({
      ringId: RING,
      folderId: 'f-1',
      epochKey: second,
      meta: { name: 'Projets', parent: '', version: 2 },
      pin: log.pin(2),
      signer: others[0]!.signer,
    });
    const opened = await openFolderMeta({
      ringId: RING,
      folderId: 'f-1',
      epochKey: keysOf(second),
      sealed: resealed,
      signerKeys: log.signerKeys,
    });
    expect(opened).toMatchObject({ signer: 'bob', meta: { version: 2 }, pin: { epoch: 2 } });
  });

  it('refuses a folder blob pinned before its epoch was created', async () => {
    const { alice, log } = await ringOf('bob');
    const { second } = await epochs();
    const sealed = await sealFolderMeta({
      ringId: RING,
      folderId: 'f-1',
      epochKey: second,
      meta: { name: 'Projets', parent: '', version: 1 },
      pin: { logSeq: 0, logHash: log.state.hashes[0]! },
      signer: alice.signer,
    });
    await expectCode(
      openFolderMeta({
        ringId: RING,
        folderId: 'f-1',
        epochKey: keysOf(second),
        sealed,
        signerKeys: log.signerKeys,
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
