import { afterEach, describe, expect, it, vi } from 'vitest';
import { exportPublicIdentity, generateIdentity, type Identity, type PublicIdentity } from './identity';
import {
  type LinkSigner,
  type MembershipChange,
  type MembershipLink,
  type MembershipState,
  activeLogMembers,
  createGenesis,
  createLink,
  hashLink,
  mayAdmit,
  openLogCheckpoint,
  signLogCheckpoint,
  signingKeysAt,
  verifyMembershipLog,
} from './membership-log';
import { expectCode, flipBase64 } from './test-support';

const RING = 'ring-1';

interface Person {
  id: string;
  username: string;
  identity: Identity;
  keys: PublicIdentity;
  signer: LinkSigner;
}

async function person(id: string, username = id): Promise<Person> {
  const identity = await generateIdentity();
  const keys = await exportPublicIdentity(identity);
  return {
    id,
    username,
    identity,
    keys,
    signer: { memberId: id, signingKey: identity.signing.privateKey, ed25519: keys.ed25519 },
  };
}

const identityOf = (p: Person) => ({ id: p.id, username: p.username, keys: p.keys });

/** A log under construction: each append is checked as a browser would, then kept. */
class LogBuilder {
  links: MembershipLink[] = [];
  state!: MembershipState;

  static async start(owner: Person, level: 'standard' | 'high' = 'standard'): Promise<LogBuilder> {
    const log = new LogBuilder();
    const genesis = await createGenesis({
      ringId: RING,
      owner: identityOf(owner),
      level,
      signer: owner.signer,
    });
    log.links.push(genesis);
    log.state = await verifyMembershipLog(log.links, { ringId: RING });
    return log;
  }

  async append(change: Exclude<MembershipChange, { type: 'genesis' }>, by: Person | LinkSigner) {
    const signer = 'signer' in by ? by.signer : by;
    const link = await createLink(this.state, change, signer);
    this.links.push(link);
    this.state = await verifyMembershipLog([link], { ringId: RING, from: this.state });
    return link;
  }

  admit(newcomer: Person, by: Person, role: 'admin' | 'member' = 'member', shareHistory = false) {
    return this.append(
      {
        type: 'admit',
        body: { member: identityOf(newcomer), role, invitation: newcomer.id, shareHistory, shareFiles: true },
      },
      by,
    );
  }
}

/** A copy of a link with one field changed (the signature left as it was). */
function tampered(link: MembershipLink, patch: Record<string, unknown>): MembershipLink {
  return { ...link, ...patch } as MembershipLink;
}

describe('the signed membership log (issue 24)', () => {
  it('follows genesis, admissions, roles, key changes, deactivation and level', async () => {
    const [owner, alice, bob, carol] = await Promise.all([
      person('owner', 'Olivia'),
      person('alice'),
      person('bob'),
      person('carol'),
    ]);
    const log = await LogBuilder.start(owner);
    await log.admit(alice, owner, 'admin', true);
    await log.admit(bob, alice);
    await log.append({ type: 'refuse', body: { memberId: 'mallory', username: 'Support' } }, alice);
    await log.append({ type: 'role', body: { memberId: 'bob', role: 'admin' } }, owner);
    await log.append({ type: 'deactivate', body: { memberId: 'bob' } }, owner);
    await log.append({ type: 'reactivate', body: { memberId: 'bob' } }, owner);
    const carolNew = await person('carol');
    await log.admit(carol, bob);
    await log.append({ type: 'key_change', body: { memberId: 'carol', keys: carolNew.keys } }, alice);
    await log.append({ type: 'level', body: { level: 'high' } }, owner);

    const state = await verifyMembershipLog(log.links, { ringId: RING });
    expect(state.head.seq).toBe(9);
    expect(state.head.hash).toBe(await hashLink(log.links[9]!));
    expect(state.genesisHash).toBe(await hashLink(log.links[0]!));
    expect(state.level).toBe('high');
    expect(activeLogMembers(state).map((m) => [m.id, m.role])).toEqual([
      ['owner', 'owner'],
      ['alice', 'admin'],
      ['bob', 'admin'],
      ['carol', 'member'],
    ]);
    expect(state.members.get('alice')).toMatchObject({
      admittedSeq: 1,
      admittedBy: 'owner',
      shareHistory: true,
    });
    expect(state.members.get('carol')!.keys).toEqual(carolNew.keys);
    expect(state.members.get('carol')!.formerKeys).toEqual([{ keys: carol.keys, fromSeq: 7, untilSeq: 8 }]);
    expect(state.refused.get('mallory')).toEqual({ username: 'Support', seq: 3 });
    expect(mayAdmit(state, 'bob')).toBe(true);
    expect(mayAdmit(state, 'carol')).toBe(false);
    expect(mayAdmit(state, 'ghost')).toBe(false);
    // Old keys verify only what was signed while they were current.
    expect(signingKeysAt(state, 'carol', 7)).toEqual([carol.keys.ed25519]);
    expect(signingKeysAt(state, 'carol', 8)).toEqual([carolNew.keys.ed25519]);
    expect(signingKeysAt(state, 'carol')).toEqual([carolNew.keys.ed25519]);
    expect(signingKeysAt(state, 'ghost')).toEqual([]);

    // Incremental verification from a checkpoint agrees with the whole chain.
    const partial = await verifyMembershipLog(log.links.slice(0, 4), { ringId: RING });
    const resumed = await verifyMembershipLog(log.links.slice(4), { ringId: RING, from: partial });
    expect(resumed).toEqual(state);
    // Verifying more never changed the state it continued from.
    expect(partial.head.seq).toBe(3);
  });

  describe('refuses what a malicious server or a non-entitled member could make', () => {
    async function ringWithAliceAndBob() {
      const [owner, alice, bob] = await Promise.all([person('owner'), person('alice'), person('bob')]);
      const log = await LogBuilder.start(owner);
      await log.admit(alice, owner, 'admin');
      await log.admit(bob, alice);
      return { owner, alice, bob, log };
    }
    const verifyAll = (links: unknown[]) => verifyMembershipLog(links, { ringId: RING });

    it('a ghost admitted by a key that is not a member (the server signing for itself)', async () => {
      const { log } = await ringWithAliceAndBob();
      const server = await person('server');
      const ghost = await person('ghost');
      // The server claims to be alice, signing with its own key.
      const forged = await createLink(
        {
          ...log.state,
          members: new Map([
            ...log.state.members,
            ['alice', { ...log.state.members.get('alice')!, keys: server.keys }],
          ]),
        },
        {
          type: 'admit',
          body: {
            member: identityOf(ghost),
            role: 'member',
            invitation: '',
            shareHistory: true,
            shareFiles: true,
          },
        },
        { ...server.signer, memberId: 'alice' },
      );
      await expectCode(verifyAll([...log.links, forged]), 'unverifiable');
    });

    it('typing indicators and read receipts (issue 29): off by default, switched only by the owner', async () => {
      const { owner, alice, log } = await ringWithAliceAndBob();
      expect(log.state.reading).toEqual({ typing: false, receipts: false });
      // A Ring admin, or the server signing with a key of its own, cannot switch them on.
      await expect(
        log.append({ type: 'reading', body: { typing: true, receipts: true } }, alice),
      ).rejects.toMatchObject({ code: 'unverifiable' });
      const server = await person('server');
      const forged = await createLink(
        {
          ...log.state,
          members: new Map([
            ...log.state.members,
            ['owner', { ...log.state.members.get('owner')!, keys: server.keys }],
          ]),
        },
        { type: 'reading', body: { typing: true, receipts: true } },
        { ...server.signer, memberId: 'owner' },
      );
      await expectCode(verifyAll([...log.links, forged]), 'unverifiable');
      // A body with an extra field (e.g. a hidden flag) does not parse.
      const extra = { ...forged, body: { typing: true, receipts: true, hidden: true } };
      await expectCode(verifyAll([...log.links, extra]), 'invalid_format');
      await log.append({ type: 'reading', body: { typing: true, receipts: false } }, owner);
      expect((await verifyAll(log.links)).reading).toEqual({ typing: true, receipts: false });
      await expect(
        log.append({ type: 'reading', body: { typing: true, receipts: false } }, owner),
      ).rejects.toMatchObject({ code: 'unverifiable' });
    });

    it('a ghost admitted by a plain member, and an admin admitted by an admin', async () => {
      const { alice, bob, log } = await ringWithAliceAndBob();
      const ghost = await person('ghost');
      await expect(log.admit(ghost, bob)).rejects.toMatchObject({ code: 'unverifiable' });
      await expect(log.admit(ghost, alice, 'admin')).rejects.toMatchObject({ code: 'unverifiable' });
    });

    it('a changed body, a flipped signature, a link of another Ring', async () => {
      const { log } = await ringWithAliceAndBob();
      const last = log.links[2]!;
      if (last.type !== 'admit') throw new Error('fixture');
      const history = tampered(last, { body: { ...last.body, shareHistory: true } });
      await expectCode(verifyAll([...log.links.slice(0, 2), history]), 'unverifiable');
      const flipped = tampered(last, { sig: flipBase64(last.sig, 5) });
      await expectCode(verifyAll([...log.links.slice(0, 2), flipped]), 'unverifiable');
      await expectCode(verifyMembershipLog(log.links, { ringId: 'ring-2' }), 'unverifiable');
    });

    it('a link dropped from the middle, two links swapped, a link replayed', async () => {
      const { alice, log } = await ringWithAliceAndBob();
      await log.append({ type: 'deactivate', body: { memberId: 'bob' } }, alice);
      const [g, a, b, d] = log.links;
      await expectCode(verifyAll([g, a, d]), 'unverifiable');
      await expectCode(verifyAll([g, b, a, d]), 'unverifiable');
      await expectCode(verifyAll([g, a, b, b, d]), 'unverifiable');
    });

    it('a genesis signed by someone other than the owner it names, or a second genesis', async () => {
      const [owner, server] = await Promise.all([person('owner'), person('server')]);
      const genesis = await createGenesis({
        ringId: RING,
        owner: identityOf(owner),
        level: 'standard',
        signer: owner.signer,
      });
      await expectCode(verifyAll([tampered(genesis, { authorKey: server.keys.ed25519 })]), 'unverifiable');
      await expect(
        createGenesis({ ringId: RING, owner: identityOf(owner), level: 'standard', signer: server.signer }),
      ).rejects.toMatchObject({ code: 'unverifiable' });
      const again = await createGenesis({
        ringId: RING,
        owner: identityOf(owner),
        level: 'basic',
        signer: owner.signer,
      });
      await expectCode(
        verifyAll([genesis, { ...again, seq: 1, prev: await hashLink(genesis) }]),
        'unverifiable',
      );
    });

    it('a link signed with a key replaced by a key change (a stolen old key)', async () => {
      const { owner, alice, log } = await ringWithAliceAndBob();
      const aliceNew = await person('alice');
      await log.append({ type: 'key_change', body: { memberId: 'alice', keys: aliceNew.keys } }, alice);
      const ghost = await person('ghost');
      // The thief holds alice's old private key and the state before her change.
      await expect(log.admit(ghost, alice)).rejects.toMatchObject({ code: 'unverifiable' });
      await log.admit(ghost, aliceNew);
      expect(log.state.members.get('ghost')!.admittedBy).toBe('alice');
      // Only the member itself (old key) or an admin may change a key; a plain member may not.
      const bobFake = await person('bob');
      const carol = await person('carol');
      await log.admit(carol, owner);
      await expect(
        log.append({ type: 'key_change', body: { memberId: 'bob', keys: bobFake.keys } }, carol),
      ).rejects.toMatchObject({ code: 'unverifiable' });
    });

    it('a deactivated member signing, a refused newcomer admitted later, the level changed by an admin', async () => {
      const { owner, alice, bob, log } = await ringWithAliceAndBob();
      const ghost = await person('ghost');
      await log.append({ type: 'refuse', body: { memberId: 'ghost', username: 'ghost' } }, alice);
      await expect(log.admit(ghost, owner)).rejects.toMatchObject({ code: 'unverifiable' });
      await expect(log.append({ type: 'level', body: { level: 'basic' } }, alice)).rejects.toMatchObject({
        code: 'unverifiable',
      });
      await log.append({ type: 'deactivate', body: { memberId: 'alice' } }, owner);
      const carol = await person('carol');
      await expect(log.admit(carol, alice)).rejects.toMatchObject({ code: 'unverifiable' });
      // The owner stays: nobody deactivates it, and its role does not change.
      await expect(
        log.append({ type: 'deactivate', body: { memberId: 'owner' } }, owner),
      ).rejects.toMatchObject({ code: 'unverifiable' });
      await expect(
        log.append({ type: 'role', body: { memberId: 'bob', role: 'admin' } }, bob),
      ).rejects.toMatchObject({
        code: 'unverifiable',
      });
    });

    it('malformed links: extra fields, wrong sizes', async () => {
      const { log } = await ringWithAliceAndBob();
      await expectCode(verifyAll([{ ...log.links[0]!, extra: 1 }]), 'invalid_format');
      await expectCode(verifyAll([tampered(log.links[0]!, { sig: 'AAAA' })]), 'invalid_format');
      await expectCode(verifyAll([]), 'missing_key');
    });
  });
});

describe('resuming from a head verified before (opening a room again)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A log of 6 links: genesis, alice (admin), bob, carol, dave (by alice), bob deactivated. */
  async function sixLinks() {
    const [owner, alice, bob, carol, dave] = await Promise.all(
      ['owner', 'alice', 'bob', 'carol', 'dave'].map((id) => person(id)),
    );
    const log = await LogBuilder.start(owner!);
    await log.admit(alice!, owner!, 'admin');
    await log.admit(bob!, owner!);
    await log.admit(carol!, alice!);
    await log.admit(dave!, alice!);
    await log.append({ type: 'deactivate', body: { memberId: 'bob' } }, alice!);
    return { owner: owner!, alice: alice!, log };
  }

  it('checks no signature up to the head and gives the state of a full verification', async () => {
    const { log } = await sixLinks();
    const full = await verifyMembershipLog(log.links, { ringId: RING });
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    const resumed = await verifyMembershipLog(log.links, {
      ringId: RING,
      verifiedHead: { seq: 3, hash: full.hashes[3]! },
    });
    expect(resumed).toEqual(full);
    // Links 4 and 5 only.
    expect(verify).toHaveBeenCalledTimes(2);
    verify.mockClear();
    await verifyMembershipLog(log.links, { ringId: RING, verifiedHead: full.head });
    expect(verify).not.toHaveBeenCalled();
  });

  it('still refuses a forged link after the head', async () => {
    const { log } = await sixLinks();
    const full = await verifyMembershipLog(log.links, { ringId: RING });
    const last = log.links[5]!;
    const forged = tampered(last, { body: { memberId: 'carol' } });
    await expectCode(
      verifyMembershipLog([...log.links.slice(0, 5), forged], {
        ringId: RING,
        verifiedHead: { seq: 4, hash: full.hashes[4]! },
      }),
      'unverifiable',
    );
  });

  it('verifies everything when the server serves another history than the head verified', async () => {
    const { log } = await sixLinks();
    const full = await verifyMembershipLog(log.links, { ringId: RING });
    const verifiedHead = { seq: 4, hash: full.hashes[4]! };
    const admitted = log.links[2]!;
    if (admitted.type !== 'admit') throw new Error('fixture');
    // Link 2 rewritten (history shared with bob), its signature left: the verified link 3 and 4
    // still hash to the head, but link 3 no longer follows link 2.
    const rewritten = tampered(admitted, { body: { ...admitted.body, shareHistory: true } });
    const before = [log.links[0]!, log.links[1]!];
    await expectCode(
      verifyMembershipLog([...before, rewritten, ...log.links.slice(3)], { ringId: RING, verifiedHead }),
      'unverifiable',
    );
    // The same rewrite with its chain re-hashed after it: link 4 no longer hashes to the head, so
    // every signature is checked, and the rewritten one fails.
    const chain: MembershipLink[] = [...before, rewritten];
    for (const link of log.links.slice(3)) chain.push({ ...link, prev: await hashLink(chain.at(-1)!) });
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    await expectCode(verifyMembershipLog(chain, { ringId: RING, verifiedHead }), 'unverifiable');
    expect(verify).toHaveBeenCalledTimes(chain.length);
    // A shorter log than the head verified is verified in full (the caller then sees the rollback).
    verify.mockClear();
    const shorter = await verifyMembershipLog(log.links.slice(0, 3), { ringId: RING, verifiedHead });
    expect(shorter.head.seq).toBe(2);
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('continues a state as well (`from` and a verified head after it)', async () => {
    const { log } = await sixLinks();
    const full = await verifyMembershipLog(log.links, { ringId: RING });
    const partial = await verifyMembershipLog(log.links.slice(0, 2), { ringId: RING });
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    const resumed = await verifyMembershipLog(log.links.slice(2), {
      ringId: RING,
      from: partial,
      verifiedHead: full.head,
    });
    expect(resumed).toEqual(full);
    expect(verify).not.toHaveBeenCalled();
  });

  describe('the checkpoint a member signs', () => {
    async function signedCheckpoint() {
      const { owner, alice, log } = await sixLinks();
      const checkpoint = {
        ringId: RING,
        memberId: 'alice',
        genesisHash: log.state.genesisHash,
        headSeq: log.state.head.seq,
        headHash: log.state.head.hash,
      };
      const sig = await signLogCheckpoint(checkpoint, alice.identity.signing.privateKey);
      return { owner, alice, log, checkpoint, sig };
    }

    it("vouches for the head with the member's current key", async () => {
      const { alice, log, checkpoint, sig } = await signedCheckpoint();
      expect(await openLogCheckpoint(checkpoint, sig, alice.keys.ed25519)).toEqual(log.state.head);
    });

    it('vouches for nothing when changed, signed by someone else, or checked with other keys', async () => {
      const { owner, alice, log, checkpoint, sig } = await signedCheckpoint();
      const open = (c: typeof checkpoint, s = sig, key = alice.keys.ed25519) => openLogCheckpoint(c, s, key);
      // Another head (a server-made history the member never verified), another Ring or member.
      expect(await open({ ...checkpoint, headHash: log.state.hashes[4]! })).toBeUndefined();
      expect(await open({ ...checkpoint, headSeq: 4 })).toBeUndefined();
      expect(await open({ ...checkpoint, ringId: 'ring-2' })).toBeUndefined();
      expect(await open({ ...checkpoint, memberId: 'owner' }, sig, owner.keys.ed25519)).toBeUndefined();
      // Signed by another key (anyone but the member), or checked after the member's key changed.
      const server = await person('server');
      const forged = await signLogCheckpoint(checkpoint, server.identity.signing.privateKey);
      expect(await open(checkpoint, forged)).toBeUndefined();
      const aliceNew = await person('alice');
      expect(await open(checkpoint, sig, aliceNew.keys.ed25519)).toBeUndefined();
      // Malformed: never throws.
      expect(await open(checkpoint, 'AAAA')).toBeUndefined();
      expect(await open(checkpoint, flipBase64(sig, 3))).toBeUndefined();
      expect(await open({ ...checkpoint, headSeq: -1 })).toBeUndefined();
      expect(await open(checkpoint, sig, 'not a key')).toBeUndefined();
    });
  });
});
