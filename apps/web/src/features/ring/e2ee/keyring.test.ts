import {
  dmConversationId,
  type TEpochKeyShare,
  type TKeyStateResponse,
  type TMemberKeyRecord,
  type TMembershipLink,
  type TPendingShare,
  type TPublicKeys,
} from '@securering/contract';
import {
  LEGACY_KDF_ITERATIONS,
  encryptMessage,
  generateEpochKey,
  generateIdentity,
  generateRecoveryKey,
  hashLink,
  sealIdentity,
  signLogCheckpoint,
  exportPublicIdentity,
  verifyMembershipLog,
  wrapEpochKeyFor,
  type Identity,
  type MembershipLink,
  type MembershipState,
  type SecurityLevel,
} from '@securering/e2ee';
import { describe, expect, it, vi } from 'vitest';
import {
  INSECURE_CONTEXT,
  KEYS_REPLACED_TEXT,
  KeyCallConflict,
  Keyring,
  LOG_PROBLEM_TEXT,
  RECOVERY_TEXT,
  PeerKeyUnavailable,
  VerifiedKeyChanged,
  type KeyringApi,
  type RememberedIdentityStore,
} from './keyring';
import { memoryLocalTrustStore, type LocalTrustStore } from './local-trust-store';

/**
 * A small in-memory stand-in for the key endpoints with the server's rules (own shares only,
 * pending members, compare-and-set epochs and log head, recipients = the members the membership
 * log admitted with the keys it names, shares bound to the log head), so the keyring's flows run
 * end to end with real crypto. Its public fields let a test play the malicious server: add a
 * ghost to `pending`, serve another log, swap published keys.
 */
class FakeKeyServer {
  readonly ringId = 'ring-1';
  level: SecurityLevel = 'basic';
  currentEpoch = 0;
  /** Raised by every write, as the server's key revision is. */
  keyRevision = 0;
  rotationDue = false;
  shareHistory = false;
  readonly epochs = new Map<number, { level: SecurityLevel; logSeq: number }>();
  readonly members = new Map<
    string,
    {
      id: string;
      role: 'owner' | 'admin' | 'member';
      active: boolean;
      keyVersion: number;
      record: TMemberKeyRecord | null;
      publicKeys: TPublicKeys | null;
      firstReadable: number;
    }
  >();
  shares: Array<{
    epoch: number;
    recipient: string;
    version: number;
    sender: string;
    share: TEpochKeyShare;
  }> = [];
  links: TMembershipLink[] = [];
  log: MembershipState | undefined;
  /** A malicious server's extra `pending` entries (served to everyone). */
  extraPending: TPendingShare[] = [];
  /** A malicious server's log, served instead of the real one when set. */
  servedLinks: TMembershipLink[] | undefined;
  readonly calls: string[] = [];

  addMember(id: string, role: 'owner' | 'admin' | 'member' = 'member') {
    this.members.set(id, {
      id,
      role,
      active: true,
      keyVersion: 0,
      record: null,
      publicKeys: null,
      firstReadable: this.currentEpoch,
    });
  }

  deactivate(id: string) {
    this.members.get(id)!.active = false;
    this.rotationDue = true;
  }

  /** The customer space reactivates the account (the log is not the server's to change). */
  reactivateAccount(id: string) {
    const member = this.members.get(id)!;
    member.active = true;
    member.firstReadable = this.currentEpoch + 1;
    this.rotationDue = true;
  }

  /**
   * A malicious server's epoch: a key it made, wrapped to `recipient` and signed by `signer` (a
   * ghost's key, a stolen revoked one) at the log's head, made the Ring's current epoch.
   */
  async forgeEpoch(epoch: number, recipient: string, signer: { memberId: string; identity: Identity }) {
    const log = this.log!;
    const key = await generateEpochKey({
      ringId: this.ringId,
      epoch,
      level: log.level,
      logSeq: log.head.seq,
    });
    const share = await wrapEpochKeyFor(
      key,
      { memberId: recipient, x25519PublicB64: this.members.get(recipient)!.publicKeys!.x25519 },
      { memberId: signer.memberId, signingPrivateKey: signer.identity.signing.privateKey },
      log.head,
    );
    this.shares.push({
      epoch,
      recipient,
      version: this.members.get(recipient)!.keyVersion,
      sender: signer.memberId,
      share,
    });
    this.currentEpoch = epoch;
    return key;
  }

  /** Active members the log admitted whose published keys are the log's. */
  private keyed() {
    return [...this.members.values()].filter((m) => {
      const logged = this.log?.members.get(m.id);
      return (
        m.active &&
        m.keyVersion > 0 &&
        logged?.status === 'active' &&
        logged.keys.x25519 === m.publicKeys?.x25519 &&
        logged.keys.ed25519 === m.publicKeys.ed25519
      );
    });
  }

  private held(id: string) {
    const member = this.members.get(id)!;
    return new Set(
      this.shares.filter((s) => s.recipient === id && s.version === member.keyVersion).map((s) => s.epoch),
    );
  }

  api(memberId: string): KeyringApi {
    const me = () => this.members.get(memberId)!;
    const assertActive = () => {
      if (!me().active) throw new Error('Session expirée');
    };
    return {
      getMemberKey: async () => {
        assertActive();
        return { success: true, key: me().record, publicKeys: me().publicKeys, keyVersion: me().keyVersion };
      },
      saveMemberKey: async ({ key, publicKeys, reset }) => {
        assertActive();
        this.calls.push(`save:${memberId}${reset ? ':reset' : ''}`);
        const m = me();
        const same =
          m.publicKeys?.x25519 === publicKeys.x25519 && m.publicKeys.ed25519 === publicKeys.ed25519;
        if (m.keyVersion > 0 && !same && !reset) throw new Error('Vos clés sont déjà publiées');
        if (m.keyVersion === 0 || !same) {
          this.keyRevision += 1;
          m.keyVersion += 1;
          this.shares = this.shares.filter((s) => s.recipient !== memberId);
        }
        m.record = key;
        m.publicKeys = publicKeys;
        return { keyVersion: m.keyVersion };
      },
      getState: async (): Promise<TKeyStateResponse> => {
        assertActive();
        const first = me().firstReadable;
        const own = this.shares.filter(
          (s) => s.recipient === memberId && s.version === me().keyVersion && s.epoch >= first,
        );
        const held = [...new Set(own.map((s) => s.epoch))];
        const pending: TPendingShare[] = [...this.extraPending];
        for (const other of this.keyed()) {
          if (other.id === memberId) continue;
          const has = this.held(other.id);
          const epochs = held.filter((e) => e >= other.firstReadable && !has.has(e));
          if (epochs.length)
            pending.push({
              memberId: other.id,
              keyVersion: other.keyVersion,
              publicKeys: other.publicKeys!,
              epochs,
            });
        }
        return {
          success: true,
          ringId: this.ringId,
          currentEpoch: this.currentEpoch,
          level: this.level,
          rotationDue: this.rotationDue || this.currentEpoch === 0,
          shareHistory: this.shareHistory,
          firstReadableEpoch: first,
          shares: own.map((s) => ({ epoch: s.epoch, senderMemberId: s.sender, share: s.share })),
          pending,
          keyRevision: this.keyRevision,
          logHeadSeq: (this.servedLinks ?? this.links).length - 1,
          currentEpochOrphaned:
            this.currentEpoch > 0 &&
            !held.includes(this.currentEpoch) &&
            !this.keyed().some((m) => this.held(m.id).has(this.currentEpoch)),
        };
      },
      getLog: async (after) => {
        assertActive();
        const links = (this.servedLinks ?? this.links).filter((l) => l.seq > after);
        return { success: true, links, headSeq: (this.servedLinks ?? this.links).length - 1 };
      },
      appendLink: async (link) => {
        assertActive();
        if (link.seq !== this.links.length) throw new KeyCallConflict('log_head_moved');
        const verified = await verifyMembershipLog([link], {
          ringId: this.ringId,
          ...(this.log ? { from: this.log } : {}),
        });
        if (link.author !== memberId) throw new Error('not the author');
        if (link.type === 'genesis' && me().role !== 'owner') throw new Error('not the owner');
        this.calls.push(`link:${memberId}:${link.type}`);
        this.links.push(link as unknown as TMembershipLink);
        this.log = verified;
        this.keyRevision += 1;
        if (link.type === 'admit') {
          const target = this.members.get(link.body.member.id)!;
          target.firstReadable = link.body.shareHistory ? 0 : this.currentEpoch + 1;
          this.rotationDue = true;
        }
        if (link.type === 'key_change' || link.type === 'deactivate' || link.type === 'reactivate')
          this.rotationDue = true;
        if (link.type === 'reactivate')
          this.members.get(link.body.memberId)!.firstReadable = this.currentEpoch + 1;
        if (link.type === 'refuse' || link.type === 'deactivate')
          this.members.get(link.body.memberId)!.active = false;
      },
      rotate: async ({ epoch, level, shares, withheld, keyVersions }) => {
        assertActive();
        this.calls.push(`rotate:${memberId}:${epoch}:withheld=${withheld.join(',')}`);
        if (epoch !== this.currentEpoch + 1) throw new KeyCallConflict('epoch_conflict');
        if (!this.log || level !== this.log.level) throw new Error('level');
        const keyed = this.keyed().map((m) => m.id);
        if (
          this.currentEpoch > 0 &&
          !this.held(memberId).has(this.currentEpoch) &&
          keyed.some((id) => this.held(id).has(this.currentEpoch))
        )
          throw Object.assign(new Error('not holder'), { status: 403 });
        const head = this.log.head;
        for (const share of shares)
          if (share.v !== 2 || share.logSeq !== head.seq || share.logHash !== head.hash)
            throw new Error('not bound');
        const recipients = new Set(shares.map((s) => s.recipientMemberId));
        if (
          keyed.some((id) => !recipients.has(id)) ||
          [...recipients].some((id) => !keyed.includes(id)) ||
          withheld.some((id) => keyed.includes(id))
        ) {
          throw new KeyCallConflict('members_changed');
        }
        for (const id of recipients)
          if (keyVersions[id] !== this.members.get(id)!.keyVersion)
            throw new KeyCallConflict('members_changed');
        this.currentEpoch = epoch;
        this.keyRevision += 1;
        this.rotationDue = false;
        this.epochs.set(epoch, { level, logSeq: head.seq });
        for (const share of shares) {
          this.shares.push({
            epoch,
            recipient: share.recipientMemberId,
            version: keyVersions[share.recipientMemberId]!,
            sender: memberId,
            share,
          });
        }
      },
      share: async ({ shares, keyVersions }) => {
        assertActive();
        for (const share of shares) {
          const recipient = this.members.get(share.recipientMemberId);
          if (!recipient || !this.keyed().includes(recipient)) throw new Error('not allowed');
          if (!this.held(memberId).has(share.epoch)) throw new Error('not holder');
          if (share.epoch < recipient.firstReadable) throw new Error('not allowed');
          if (keyVersions[recipient.id] !== recipient.keyVersion)
            throw new KeyCallConflict('members_changed');
          this.calls.push(`share:${memberId}->${recipient.id}:${share.epoch}`);
          this.keyRevision += 1;
          this.shares.push({
            epoch: share.epoch,
            recipient: recipient.id,
            version: recipient.keyVersion,
            sender: memberId,
            share,
          });
        }
      },
      getMembers: async () =>
        [...this.members.values()]
          .filter((m) => m.active)
          .map((m) => ({
            id: m.id,
            username: m.id,
            keys: m.keyVersion > 0 ? m.publicKeys : null,
            keyVersion: m.keyVersion > 0 ? m.keyVersion : null,
          })),
    };
  }
}

/** One member's browser tab: its keyring and this browser's memory of the log it verified. */
function tab(server: FakeKeyServer, memberId: string, localTrust: LocalTrustStore = memoryLocalTrustStore()) {
  return new Keyring({
    ringId: server.ringId,
    memberId,
    level: () => server.level,
    role: () => server.members.get(memberId)!.role,
    api: server.api(memberId),
    localTrust,
  });
}

/** The room reads the Ring's members (info.php) and tells the keyring. */
async function refreshMembers(server: FakeKeyServer, keyring: Keyring) {
  await keyring.setMembers(await server.api(keyring.memberId).getMembers(true));
}

/** « Admettre » in the room: the number shown is the one the admitter compared. */
async function admit(server: FakeKeyServer, admitter: Keyring, memberId: string, shareHistory = false) {
  await refreshMembers(server, admitter);
  const shown = admitter.getSnapshot().safety.get(memberId)!.fingerprint;
  return admitter.admit(memberId, { expectedFingerprint: shown, shareHistory, shareFiles: true });
}

const OWNER_PHRASE = 'phrase du propriétaire';
const BOB_PHRASE = 'phrase secrète de bob';
const SLOW = { timeout: 60_000 };

/** The owner (who starts the log and epoch 1) and Bob, who waits for admission. */
async function ownerAndWaitingBob() {
  const server = new FakeKeyServer();
  server.addMember('owner', 'owner');
  server.addMember('bob');
  const owner = tab(server, 'owner');
  await owner.load();
  expect(owner.getSnapshot().phase).toBe('setup');
  expect(await owner.createPassphrase(OWNER_PHRASE)).toBe(true);
  await owner.sync();
  const bob = tab(server, 'bob');
  await bob.load();
  expect(await bob.createPassphrase(BOB_PHRASE)).toBe(true);
  await bob.sync();
  return { server, owner, bob };
}

/** The same, Bob admitted by the owner (a new epoch that reaches him). */
async function ownerAndBob() {
  const ring = await ownerAndWaitingBob();
  expect(await admit(ring.server, ring.owner, 'bob')).toBe(true);
  await ring.bob.sync();
  expect(ring.bob.getSnapshot().status).toBe('active');
  return ring;
}

describe('keyring flows against the key endpoints', () => {
  it(
    'the owner starts the log and epoch 1; a newcomer waits for admission, then reads from it on',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndWaitingBob();
      expect(server.links.map((l) => l.type)).toEqual(['genesis']);
      expect(server.currentEpoch).toBe(1);
      expect(owner.getSnapshot()).toMatchObject({ status: 'active', admission: 'admitted', mayAdmit: true });
      // The session keys are the non-extractable ones of the saved record.
      expect(owner.signingKey?.extractable).toBe(false);
      expect(server.members.get('owner')!.record).toMatchObject({ kdf: 'argon2id', kdf_mem_kib: 65_536 });
      const before = await owner.encryptText('room:general', 'Avant Bob', owner.currentEpochKey()!);

      // Bob published keys: he waits, and nothing is shared with him whatever the owner syncs.
      expect(bob.getSnapshot()).toMatchObject({ status: 'waiting_keys', admission: 'waiting' });
      await refreshMembers(server, owner);
      expect(owner.getSnapshot().waiting).toEqual(['bob']);
      expect(owner.getSnapshot().safety.get('bob')!.trust).toBe('waiting');
      await owner.sync();
      expect(server.shares.filter((s) => s.recipient === 'bob')).toEqual([]);

      // « Admettre »: a link, then a new epoch that reaches Bob (not the earlier one).
      expect(await admit(server, owner, 'bob')).toBe(true);
      expect(server.links.map((l) => l.type)).toEqual(['genesis', 'admit']);
      expect(server.currentEpoch).toBe(2);
      await bob.sync();
      expect(bob.getSnapshot()).toMatchObject({ status: 'active', admission: 'admitted' });
      expect(bob.epochKey(1)).toBeUndefined();
      const after = await owner.encryptText('room:general', 'Bonjour Bob', owner.currentEpochKey()!);
      await refreshMembers(server, bob);
      expect((await bob.decryptText(after.content, 'room:general')).plaintext).toBe('Bonjour Bob');
      await expect(bob.decryptText(before.content, 'room:general')).rejects.toMatchObject({
        code: 'missing_key',
      });
      await expect(bob.decryptText(after.content, 'dm:x:y')).rejects.toMatchObject({ code: 'unverifiable' });
    },
  );

  it(
    '« Partager l’historique » ticked: the admitted member also receives the earlier epochs',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndWaitingBob();
      expect(await admit(server, owner, 'bob', true)).toBe(true);
      await owner.sync();
      expect(server.calls).toContain('share:owner->bob:1');
      await bob.sync();
      expect(bob.epochKey(1)).toBeDefined();
      expect(bob.epochKey(2)).toBeDefined();
    },
  );

  it('a wrong passphrase fails and opens nothing; the right one unlocks the same keys', SLOW, async () => {
    const { server } = await ownerAndBob();
    const again = tab(server, 'owner');
    await again.load();
    expect(again.getSnapshot().phase).toBe('unlock');
    expect(await again.unlock('une mauvaise phrase')).toBe(false);
    expect(again.getSnapshot()).toMatchObject({ status: 'failed', error: 'Déverrouillage E2EE échoué' });
    expect(again.signingKey).toBeNull();
    expect(again.currentEpochKey()).toBeUndefined();
    expect(await again.unlock(OWNER_PHRASE)).toBe(true);
    await again.sync();
    expect(again.getSnapshot()).toMatchObject({ status: 'active', error: null });
  });

  describe('what a malicious server can no longer do (the review’s ghost attacks)', () => {
    it('C1: a ghost the server adds to `pending` gets no key, and admins are told', SLOW, async () => {
      const { server, owner } = await ownerAndBob();
      const ghost = await exportPublicIdentity(await generateIdentity());
      server.extraPending = [{ memberId: 'ghost', keyVersion: 1, publicKeys: ghost, epochs: [1, 2] }];
      server.calls.length = 0;
      await owner.sync();
      // Before: the owner's browser wrapped epochs 1 and 2 for the ghost automatically.
      expect(server.calls.filter((c) => c.includes('ghost'))).toEqual([]);
      expect(owner.getSnapshot().ignoredPending).toEqual(['ghost']);
    });

    it(
      'C1: a share signed by a key the log does not know is refused, whatever epoch it claims',
      SLOW,
      async () => {
        const { server, owner, bob } = await ownerAndBob();
        const ghost = await generateIdentity();
        const fake = await server.forgeEpoch(3, 'bob', { memberId: 'ghost', identity: ghost });
        await bob.sync();
        // Before: ensureSendableEpoch returned the server's key once the ghost had been shown once.
        expect(bob.epochKey(3)).toBeUndefined();
        // Bob cannot use epoch 3: he starts a fresh epoch for the log's members instead.
        const sendable = await bob.ensureSendableEpoch();
        expect(sendable.epoch).toBe(4);
        expect(sendable.material).not.toEqual(fake.material);
        const recipients = server.shares.filter((s) => s.epoch === 4).map((s) => s.recipient);
        expect(recipients.sort()).toEqual(['bob', 'owner']);
        await owner.sync();
        expect(owner.epochKey(4)).toBeDefined();
      },
    );

    it('H2: after a key reset, a share signed with the stolen old key is refused', SLOW, async () => {
      const { server, owner, bob } = await ownerAndBob();
      // The thief's copy of Bob's old private key (what a reset is meant to revoke).
      const stolen = (bob as unknown as { identity: Identity }).identity;
      expect(await bob.resetKeys('nouvelle phrase de bob')).toBe(true);
      // Unlocked, Bob's old key signed the change itself: the log names his new keys.
      expect(server.links.at(-1)!.type).toBe('key_change');
      await owner.sync();
      const log = server.log!;
      await server.forgeEpoch(9, 'owner', { memberId: 'bob', identity: stolen });
      await owner.sync();
      expect(owner.epochKey(9)).toBeUndefined();
      // Nor as a version 1 share (no log position to check): only the sender's current key counts.
      const legacy = await wrapEpochKeyFor(
        await generateEpochKey({ ringId: server.ringId, epoch: 10, level: log.level }),
        { memberId: 'owner', x25519PublicB64: server.members.get('owner')!.publicKeys!.x25519 },
        { memberId: 'bob', signingPrivateKey: stolen.signing.privateKey },
      );
      server.shares.push({ epoch: 10, recipient: 'owner', version: 1, sender: 'bob', share: legacy });
      server.currentEpoch = 10;
      await owner.sync();
      expect(owner.epochKey(10)).toBeUndefined();
      // Calls and new content verify only with his new key; the old one only for what came before.
      expect(await owner.verifyKeysOf('bob', log.head.seq)).toHaveLength(1);
      expect(await owner.verifyKeysOf('bob')).toHaveLength(2);
      const fresh = await exportPublicIdentity(stolen);
      expect(fresh.ed25519).not.toBe(server.members.get('bob')!.publicKeys!.ed25519);
    });

    it(
      'L4: the level the owner signed holds against a server that lowers it; a raise is signed',
      SLOW,
      async () => {
        const { server, owner } = await ownerAndBob();
        server.level = 'basic';
        server.rotationDue = true;
        expect((await owner.ensureSendableEpoch()).level).toBe('basic');
        // The genesis was signed at 'basic' (the Ring's level then); the customer raises it.
        server.level = 'high';
        await owner.sync();
        expect(server.links.at(-1)!.type).toBe('level');
        expect((await owner.ensureSendableEpoch()).level).toBe('high');
        // The server now says « basic » again: the signed level stays.
        server.level = 'basic';
        server.rotationDue = true;
        expect((await owner.ensureSendableEpoch()).level).toBe('high');
        expect(server.links.filter((l) => l.type === 'level')).toHaveLength(1);
      },
    );

    it(
      'L3: « Confirmer » signs the keys whose number was compared, not what the server swaps in',
      SLOW,
      async () => {
        const server = new FakeKeyServer();
        server.addMember('owner', 'owner');
        server.addMember('bob');
        const owner = tab(server, 'owner');
        await owner.load();
        await owner.createPassphrase(OWNER_PHRASE);
        const bob = tab(server, 'bob');
        await bob.load();
        await bob.createPassphrase(BOB_PHRASE);
        expect(await admit(server, owner, 'bob')).toBe(true);
        // Bob forgot his passphrase: a reset from the locked dialog (nothing signs it).
        const forgetful = tab(server, 'bob');
        await forgetful.load();
        expect(await forgetful.resetKeys('phrase neuve de bob')).toBe(true);
        await forgetful.sync();
        await refreshMembers(server, owner);
        const shown = owner.getSnapshot().safety.get('bob')!;
        expect(shown.trust).toBe('changed');
        expect(forgetful.getSnapshot().admission).toBe('key_pending');
        // Between display and click, the server publishes other keys for Bob.
        server.members.get('bob')!.publicKeys = await exportPublicIdentity(await generateIdentity());
        await refreshMembers(server, owner);
        expect(await owner.confirmKey('bob', shown.fingerprint)).toBe(false);
        expect(server.links.at(-1)!.type).toBe('admit');
      },
    );

    it(
      'a log that does not extend the one this browser verified (fork, rollback) suspends every key',
      SLOW,
      async () => {
        const { server, owner } = await ownerAndBob();
        await owner.sync();
        // The server serves only the genesis again (hiding Bob's admission)…
        server.servedLinks = server.links.slice(0, 1);
        const again = tab(
          server,
          'owner',
          (owner as unknown as { deps: { localTrust: LocalTrustStore } }).deps.localTrust,
        );
        await again.load();
        expect(await again.unlock(OWNER_PHRASE)).toBe(true);
        await again.sync();
        expect(again.getSnapshot()).toMatchObject({
          status: 'failed',
          logProblem: LOG_PROBLEM_TEXT.rollback,
        });
        await expect(again.ensureSendableEpoch()).rejects.toMatchObject({ code: 'missing_key' });
        // …or a tampered link: the chain does not verify.
        server.servedLinks = server.links.map((l, i) =>
          i === 1 ? ({ ...l, body: { ...l.body, shareHistory: true } } as TMembershipLink) : l,
        );
        const fresh = tab(server, 'owner');
        await fresh.load();
        await fresh.unlock(OWNER_PHRASE);
        await fresh.sync();
        expect(fresh.getSnapshot().logProblem).toBe(LOG_PROBLEM_TEXT.invalid);
      },
    );

    it(
      'a new tab skips the signatures of the log this member verified and signed, never of a head it did not sign',
      SLOW,
      async () => {
        const { server, owner } = await ownerAndBob();
        await owner.sync();
        const store = (owner as unknown as { deps: { localTrust: LocalTrustStore } }).deps.localTrust;
        const signed = (await store.getCheckpoint(server.ringId, 'owner'))!;
        expect(signed).toMatchObject({ headSeq: server.links.length - 1, sig: expect.any(String) });
        // Signature checks of a new tab opening the room (unlock and sync), with the store given.
        const verifyCalls = async (localTrust: LocalTrustStore) => {
          const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
          try {
            const again = tab(server, 'owner', localTrust);
            await again.load();
            expect(await again.unlock(OWNER_PHRASE)).toBe(true);
            await again.sync();
            expect(again.getSnapshot()).toMatchObject({ status: 'active', logProblem: null });
            return verify.mock.calls.length;
          } finally {
            verify.mockRestore();
          }
        };
        const withStored = async (checkpoint: Parameters<LocalTrustStore['putCheckpoint']>[1]) => {
          const localTrust = memoryLocalTrustStore();
          await localTrust.putCheckpoint('owner', checkpoint);
          return localTrust;
        };
        const other = await generateIdentity();
        const forgedSig = await signLogCheckpoint({ ...signed, memberId: 'owner' }, other.signing.privateKey);
        const resumed = await verifyCalls(await withStored(signed));
        const unsigned = await verifyCalls(await withStored({ ...signed, sig: undefined }));
        const forged = await verifyCalls(await withStored({ ...signed, sig: forgedSig }));
        // Every link's signature is checked again unless the member signed the head (then one
        // check: the checkpoint's own signature).
        expect(unsigned - resumed).toBe(server.links.length - 1);
        // Signed by anyone else: its signature is checked, refused, and every link checked again.
        expect(forged).toBe(unsigned + 1);

        // A head of a rewritten log (history shared with Bob), stored by someone who cannot sign as
        // the member: the rewritten link is verified, and refused.
        server.servedLinks = server.links.map((l, i) =>
          i === 1 ? ({ ...l, body: { ...l.body, shareHistory: true } } as TMembershipLink) : l,
        );
        const rewrittenHead = {
          ...signed,
          headHash: await hashLink(server.servedLinks.at(-1)! as MembershipLink),
        };
        const fresh = tab(
          server,
          'owner',
          await withStored({
            ...rewrittenHead,
            sig: await signLogCheckpoint({ ...rewrittenHead, memberId: 'owner' }, other.signing.privateKey),
          }),
        );
        await fresh.load();
        expect(await fresh.unlock(OWNER_PHRASE)).toBe(true);
        await fresh.sync();
        expect(fresh.getSnapshot().logProblem).toBe(LOG_PROBLEM_TEXT.invalid);
      },
    );
  });

  it(
    'a key reset while locked waits for an admin’s confirmation; nothing is wrapped to the new key before',
    SLOW,
    async () => {
      const { server, owner } = await ownerAndBob();
      await refreshMembers(server, owner);
      const before = owner.getSnapshot().safety.get('bob')!;
      expect(before).toMatchObject({ trust: 'trusted' });
      expect(before.fingerprint).toMatch(/^\d{5}( \d{5}){5}$/);

      const bob = tab(server, 'bob');
      await bob.load();
      expect(await bob.resetKeys('nouvelle phrase de bob')).toBe(true);
      await bob.sync();
      expect(bob.getSnapshot()).toMatchObject({ status: 'waiting_keys', admission: 'key_pending' });

      await refreshMembers(server, owner);
      const after = owner.getSnapshot().safety.get('bob')!;
      expect(after.trust).toBe('changed');
      expect(after.fingerprint).not.toBe(before.fingerprint);
      expect(after.logFingerprint).toBe(before.fingerprint);
      server.calls.length = 0;
      await owner.sync();
      expect(server.calls.filter((c) => c.startsWith('share:'))).toEqual([]);

      // A rotation meanwhile withholds bob instead of wrapping for the unconfirmed key.
      server.rotationDue = true;
      const key = await owner.ensureSendableEpoch();
      expect(key.epoch).toBe(3);
      expect(server.calls).toContain('rotate:owner:3:withheld=bob');

      expect(await owner.confirmKey('bob', after.fingerprint)).toBe(true);
      expect(server.links.at(-1)!.type).toBe('key_change');
      await bob.sync();
      expect(bob.getSnapshot()).toMatchObject({ status: 'active', admission: 'admitted' });
      expect(bob.currentEpochKey()!.epoch).toBe(4);
    },
  );

  it(
    'rotateAhead (a send answer’s rotationSoon) creates the next epoch in the background, once per epoch',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      await owner.sync();
      const before = await bob.ensureSendableEpoch();
      server.calls.length = 0;
      bob.rotateAhead(before.epoch);
      // The current key still sends meanwhile: nothing waits for the rotation.
      expect(bob.currentEpochKey()!.epoch).toBe(before.epoch);
      await vi.waitFor(() => expect(server.currentEpoch).toBe(before.epoch + 1));
      await vi.waitFor(() => expect(bob.currentEpochKey()!.epoch).toBe(before.epoch + 1));
      expect(server.calls.filter((c) => c.startsWith('rotate:'))).toEqual([
        `rotate:bob:${before.epoch + 1}:withheld=`,
      ]);

      // The server repeating the hint, or a second send answer of the same epoch (late, once the
      // next epoch is read or not yet), starts nothing more.
      bob.rotateAhead(before.epoch);
      await bob.sync();
      bob.rotateAhead(before.epoch);
      await owner.sync();
      expect(server.calls.filter((c) => c.startsWith('rotate:'))).toHaveLength(1);
      // The owner receives the new epoch as for any rotation.
      expect((await owner.ensureSendableEpoch()).epoch).toBe(before.epoch + 1);
    },
  );

  it(
    'every message names the log head its sender verified: another link there, or a head older than its epoch, is refused',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      await owner.sync();
      const key = await bob.ensureSendableEpoch();
      const sent = await bob.encryptText('room:general', 'tête du journal', key);
      const head = server.links.length - 1;
      expect(sent.header).toMatchObject({ logSeq: head });
      expect((await owner.decryptText(sent.content, 'room:general')).plaintext).toBe('tête du journal');

      // Bob's own key signs, but the head he names is not the owner's log (a server showing him
      // another history), or is older than the epoch the message uses.
      const bobSigning = (bob as unknown as { identity: { signing: { privateKey: CryptoKey } } }).identity
        .signing.privateKey;
      const forged = (logSeq: number, logHash: string) =>
        encryptMessage(
          { ...sent.header, clientMessageId: crypto.randomUUID(), logSeq, logHash },
          'x',
          key,
          bobSigning,
        );
      await expect(
        owner.decryptText(await forged(head, 'f'.repeat(64)), 'room:general'),
      ).rejects.toMatchObject({
        code: 'unverifiable',
      });
      const epochLogSeq = key.logSeq!;
      expect(epochLogSeq).toBeGreaterThan(0);
      const older = await verifyMembershipLog(server.links.slice(0, epochLogSeq), { ringId: server.ringId });
      await expect(
        owner.decryptText(await forged(older.head.seq, older.head.hash), 'room:general'),
      ).rejects.toMatchObject({ code: 'unverifiable' });
      // A head further than the owner's log: it waits for the log rather than failing.
      await expect(
        owner.decryptText(await forged(head + 5, 'e'.repeat(64)), 'room:general'),
      ).rejects.toMatchObject({
        code: 'missing_key',
      });
    },
  );

  it(
    '« Vérifié »: once a verified member’s key changes in the log, nothing is sent to it until compared again',
    SLOW,
    async () => {
      const { server, owner } = await ownerAndBob();
      await refreshMembers(server, owner);
      const before = owner.getSnapshot().safety.get('bob')!;
      expect(before.verification).toBe('unverified');
      // The number compared must be the log's: another one is refused.
      expect(await owner.markVerified('bob', '00000 00000 00000 00000 00000 00000')).toBe(false);
      expect(await owner.markVerified('bob', before.logFingerprint!)).toBe(true);
      expect(owner.getSnapshot().safety.get('bob')!.verification).toBe('verified');
      const key = await owner.ensureSendableEpoch();
      await expect(owner.encryptText('room:general', 'avant', key)).resolves.toBeDefined();

      // Bob resets; the owner (admin) confirms his new key in the log: the mark no longer holds.
      const bob = tab(server, 'bob');
      await bob.load();
      expect(await bob.resetKeys('nouvelle phrase de bob')).toBe(true);
      await refreshMembers(server, owner);
      const changedKeys = owner.getSnapshot().safety.get('bob')!;
      expect(await owner.confirmKey('bob', changedKeys.fingerprint)).toBe(true);
      await refreshMembers(server, owner);
      const after = owner.getSnapshot();
      expect(after.safety.get('bob')!.verification).toBe('changed');
      expect(after.verifiedKeyChanged).toEqual(['bob']);
      const next = await owner.ensureSendableEpoch();
      for (const conversation of ['room:general', dmConversationId('owner', 'bob')])
        await expect(owner.encryptText(conversation, 'bloqué', next)).rejects.toBeInstanceOf(
          VerifiedKeyChanged,
        );

      // Compared again: sending resumes. The mark is kept in this browser's store (a new tab sees it).
      expect(await owner.markVerified('bob', after.safety.get('bob')!.logFingerprint!)).toBe(true);
      expect(owner.getSnapshot().verifiedKeyChanged).toEqual([]);
      await expect(owner.encryptText('room:general', 'après', next)).resolves.toBeDefined();
      const store = (owner as unknown as { deps: { localTrust: LocalTrustStore } }).deps.localTrust;
      const again = tab(server, 'owner', store);
      await again.load();
      expect(await again.unlock(OWNER_PHRASE)).toBe(true);
      await again.sync();
      await refreshMembers(server, again);
      expect(again.getSnapshot().safety.get('bob')!.verification).toBe('verified');
      expect(await again.unmarkVerified('bob')).toBe(true);
      expect(again.getSnapshot().safety.get('bob')!.verification).toBe('unverified');
    },
  );

  it(
    'after a deactivation the next send creates an epoch the removed member never receives',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      await owner.sync();
      await bob.sync();
      server.deactivate('bob');
      const key = await owner.ensureSendableEpoch();
      expect(key.epoch).toBe(3);
      expect(server.shares.filter((s) => s.recipient === 'bob').map((s) => s.epoch)).toEqual([2]);
      await expect(bob.sync()).resolves.toBeUndefined();
      expect(bob.epochKey(3)).toBeUndefined();
    },
  );

  it(
    'a deactivation in the customer space is recorded in the log by a person; a reactivation there gives nothing until one signs it in the room',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      server.deactivate('bob');
      await refreshMembers(server, owner);
      expect(owner.getSnapshot().departed).toEqual([{ id: 'bob', username: 'bob' }]);
      // The browser signs nothing by itself.
      expect(server.links.at(-1)!.type).toBe('admit');
      expect(await owner.recordDeparture('bob')).toBe(true);
      expect(server.links.at(-1)!.type).toBe('deactivate');
      expect(owner.getSnapshot().departed).toEqual([]);
      // The timeline's « bob a été retiré du Ring » from the signed link (issue 28: after a reload too).
      const departure = { memberId: 'bob', username: 'bob', at: server.links.at(-1)!.at, back: false };
      expect(owner.getSnapshot().membershipChanges).toEqual([departure]);
      await owner.ensureSendableEpoch();

      // The customer space reactivates bob's account: he is listed again, still out of the log.
      server.reactivateAccount('bob');
      await refreshMembers(server, owner);
      expect(owner.getSnapshot().reactivatable).toEqual(['bob']);
      const before = server.currentEpoch;
      const sent = await owner.ensureSendableEpoch();
      expect(server.shares.some((s) => s.recipient === 'bob' && s.epoch === sent.epoch)).toBe(false);
      await bob.sync();
      expect(bob.getSnapshot()).toMatchObject({ admission: 'removed', status: 'waiting_keys' });

      expect(await owner.reactivate('bob')).toBe(true);
      expect(server.links.at(-1)!.type).toBe('reactivate');
      expect(server.currentEpoch).toBeGreaterThan(before);
      const back = { memberId: 'bob', username: 'bob', at: server.links.at(-1)!.at, back: true };
      expect(owner.getSnapshot().membershipChanges).toEqual([departure, back]);
      await bob.sync();
      expect(bob.getSnapshot()).toMatchObject({ admission: 'admitted', status: 'active' });
      expect(bob.getSnapshot().membershipChanges).toEqual([departure, back]);
      expect(bob.currentEpochKey()!.epoch).toBe(server.currentEpoch);
    },
  );

  it(
    'the last holder who resets its keys while unlocked starts a recovery epoch by itself',
    SLOW,
    async () => {
      const server = new FakeKeyServer();
      server.addMember('owner', 'owner');
      const owner = tab(server, 'owner');
      await owner.load();
      expect(await owner.createPassphrase(OWNER_PHRASE)).toBe(true);
      await owner.sync();
      expect((await owner.ensureSendableEpoch()).epoch).toBe(1);

      expect(await owner.resetKeys('nouvelle phrase du propriétaire')).toBe(true);
      expect(server.links.at(-1)!.type).toBe('key_change');
      await vi.waitFor(() =>
        expect(owner.getSnapshot()).toMatchObject({ status: 'active', currentEpoch: 2 }),
      );
      expect(owner.epochKey(1)).toBeUndefined();
    },
  );

  it('when nobody holds the current epoch any more, a member starts a recovery epoch', SLOW, async () => {
    const { server, owner, bob } = await ownerAndBob();
    // Every share of the current epoch is gone (its holders reset or left).
    server.shares = server.shares.filter((s) => s.epoch !== server.currentEpoch);
    const fresh = tab(server, 'bob');
    await fresh.load();
    await fresh.unlock(BOB_PHRASE);
    // No send needed: the key state says nobody can share the current epoch any more.
    await fresh.sync();
    await vi.waitFor(() => expect(fresh.getSnapshot()).toMatchObject({ status: 'active', currentEpoch: 3 }));
    const key = await fresh.ensureSendableEpoch();
    expect(key.epoch).toBe(3);
    await owner.sync();
    expect(owner.epochKey(3)).toBeDefined();
    void bob;
  });

  it(
    'two members rotating at once: one wins, the other reads the state again and uses the winner’s epoch',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      await owner.sync();
      await bob.sync();
      server.rotationDue = true;
      const [a, b] = await Promise.all([owner.ensureSendableEpoch(), bob.ensureSendableEpoch()]);
      expect(server.currentEpoch).toBe(3);
      expect(a.epoch).toBe(3);
      expect(b.epoch).toBe(3);
      expect(server.calls.filter((c) => c.startsWith('rotate:') && c.includes(':3:'))).toHaveLength(2);
      const { content } = await bob.encryptText('room:general', 'ok', b);
      await refreshMembers(server, owner);
      expect((await owner.decryptText(content, 'room:general')).plaintext).toBe('ok');
    },
  );

  it(
    'an older PBKDF2 record is re-sealed with Argon2id and a recovery key after unlock (shown once), which reopens it',
    SLOW,
    async () => {
      const server = new FakeKeyServer();
      server.level = 'high';
      server.addMember('owner', 'owner');
      const identity = await generateIdentity();
      const legacy = await sealIdentity(identity, OWNER_PHRASE, {
        memberId: 'owner',
        iterations: LEGACY_KDF_ITERATIONS,
      });
      const member = server.members.get('owner')!;
      Object.assign(member, {
        record: legacy,
        publicKeys: await exportPublicIdentity(identity),
        keyVersion: 1,
      });
      const owner = tab(server, 'owner');
      await owner.load();
      expect(await owner.unlock(OWNER_PHRASE)).toBe(true);
      await expect.poll(() => member.record!.kdf, { timeout: 30_000 }).toBe('argon2id');
      expect(member.record!.kdf_mem_kib).toBeGreaterThanOrEqual(64 * 1024);
      expect(member.keyVersion).toBe(1);
      await owner.sync();
      expect(owner.currentEpochKey()!.level).toBe('high');
      // The recovery key made then is shown once, and leaves memory when acknowledged.
      const recoveryKey = owner.getSnapshot().recoveryKey;
      expect(recoveryKey).toMatch(/^([0-9A-Z]{4}-){7}[0-9A-Z]{4}$/);
      owner.acknowledgeRecoveryKey();
      expect(owner.getSnapshot().recoveryKey).toBeNull();

      // Passphrase forgotten: a new tab reopens the same keys with the recovery key.
      const again = tab(server, 'owner');
      await again.load();
      expect(await again.recover('ABCD-EFGH', 'une nouvelle phrase de la propriétaire')).toBe(false);
      expect(again.getSnapshot().error).toBe(RECOVERY_TEXT.malformed);
      expect(await again.recover(generateRecoveryKey(), 'une nouvelle phrase de la propriétaire')).toBe(
        false,
      );
      expect(again.getSnapshot().error).toBe(RECOVERY_TEXT.wrong);
      expect(await again.recover(recoveryKey!, 'une nouvelle phrase de la propriétaire')).toBe(true);
      expect(again.getSnapshot().phase).toBe('ready');
      expect(member.keyVersion).toBe(1);
      expect(member.publicKeys).toEqual(await exportPublicIdentity(identity));
      const third = tab(server, 'owner');
      await third.load();
      expect(await third.unlock(OWNER_PHRASE)).toBe(false);
      expect(await third.unlock('une nouvelle phrase de la propriétaire')).toBe(true);
    },
  );

  it(
    'a private conversation uses the pairwise key: both members read it, a third member with the epoch key cannot',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      server.addMember('carol');
      const carol = tab(server, 'carol');
      await carol.load();
      expect(await carol.createPassphrase('phrase secrète de carol')).toBe(true);
      expect(await admit(server, owner, 'carol')).toBe(true);
      await bob.sync();
      await carol.sync();
      for (const keyring of [owner, bob, carol]) await refreshMembers(server, keyring);
      expect(carol.getSnapshot().status).toBe('active');

      const dm = dmConversationId('owner', 'bob');
      const epochKey = await owner.ensureSendableEpoch();
      const { content } = await owner.encryptText(dm, 'Rien que pour toi', epochKey);
      expect((await bob.decryptText(content, dm)).plaintext).toBe('Rien que pour toi');
      // The sender reads its own message back (history after a reload).
      expect((await owner.decryptText(content, dm)).plaintext).toBe('Rien que pour toi');
      const reply = await bob.encryptText(dm, 'Bien reçu', bob.currentEpochKey()!);
      expect((await owner.decryptText(reply.content, dm)).plaintext).toBe('Bien reçu');

      // Carol holds the same epoch key but is not in the conversation.
      expect(carol.currentEpochKey()!.epoch).toBe(epochKey.epoch);
      await expect(carol.decryptText(content, dm)).rejects.toMatchObject({ code: 'unverifiable' });
      // Even moved into the room, the envelope does not open with the epoch key.
      await expect(carol.decryptText(content, 'room:general')).rejects.toMatchObject({
        code: 'unverifiable',
      });

      // Bob resets his keys (unlocked: his old key signs the change): new DMs use his new key, and
      // what he sent before his reset still reads.
      expect(await bob.resetKeys('nouvelle phrase de bob')).toBe(true);
      await owner.sync();
      await refreshMembers(server, owner);
      expect((await owner.decryptText(reply.content, dm)).plaintext).toBe('Bien reçu');
      // A peer the log does not know gets nothing encrypted for it.
      await expect(
        owner.encryptText(dmConversationId('owner', 'zed'), 'x', owner.currentEpochKey()!),
      ).rejects.toBeInstanceOf(PeerKeyUnavailable);
    },
  );

  it(
    '« Se souvenir sur cet appareil »: the kept identity unlocks the next visit, unless the keys were replaced',
    SLOW,
    async () => {
      const { server } = await ownerAndBob();
      const kept = new Map<string, { identity: Identity; publicKeys: TPublicKeys }>();
      const remembered: RememberedIdentityStore = {
        get: async (ringId, memberId) => kept.get(`${ringId}:${memberId}`),
        put: async (ringId, memberId, identity, publicKeys) => {
          kept.set(`${ringId}:${memberId}`, { identity, publicKeys });
        },
        forget: async (ringId, memberId) => {
          kept.delete(`${ringId}:${memberId}`);
        },
      };
      const visit = () =>
        new Keyring({
          ringId: server.ringId,
          memberId: 'bob',
          level: () => server.level,
          role: () => 'member',
          api: server.api('bob'),
          localTrust: memoryLocalTrustStore(),
          remembered,
        });
      const first = visit();
      await first.load();
      expect(first.getSnapshot().phase).toBe('unlock');
      expect(await first.unlock(BOB_PHRASE)).toBe(true);
      await first.rememberOnDevice(true);
      // Only the key objects are kept, their private halves non-extractable.
      const entry = kept.get(`${server.ringId}:bob`)!;
      expect(entry.identity.signing.privateKey.extractable).toBe(false);
      expect(entry.identity.agreement.privateKey.extractable).toBe(false);

      // Next visit: unlocked without the passphrase, and it reads the Ring's key again.
      const second = visit();
      await second.load();
      expect(second.getSnapshot()).toMatchObject({ phase: 'ready', remembered: true });
      await second.sync();
      expect(second.getSnapshot().status).toBe('active');

      // Bob resets his keys elsewhere: the kept identity is no longer his; it is forgotten.
      const elsewhere = tab(server, 'bob');
      await elsewhere.load();
      await elsewhere.unlock(BOB_PHRASE);
      expect(await elsewhere.resetKeys('la nouvelle phrase de bob')).toBe(true);
      const third = visit();
      await third.load();
      expect(third.getSnapshot()).toMatchObject({ phase: 'unlock', remembered: false });
      expect(kept.size).toBe(0);

      // Unticked: forgotten too.
      expect(await third.unlock('la nouvelle phrase de bob')).toBe(true);
      await third.rememberOnDevice(true);
      expect(kept.size).toBe(1);
      await third.rememberOnDevice(false);
      expect(kept.size).toBe(0);
    },
  );

  it(
    'a locked reset: the member is told who confirms; the others see the change, pending then in the log',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      // Bob forgot his passphrase: new keys from a locked tab (nothing vouches for them).
      const locked = tab(server, 'bob');
      await locked.load();
      expect(await locked.resetKeys('la nouvelle phrase de bob')).toBe(true);
      await locked.sync();
      expect(locked.getSnapshot()).toMatchObject({ admission: 'key_pending', status: 'waiting_keys' });
      expect(locked.getSnapshot().confirmers).toEqual([{ id: 'owner', username: 'owner' }]);

      await refreshMembers(server, owner);
      const pending = owner.getSnapshot().keyChanges;
      expect(pending).toEqual([{ memberId: 'bob', at: expect.any(String), pending: true }]);
      // The same list while nothing changed (the chat re-checks messages only on a change).
      await refreshMembers(server, owner);
      expect(owner.getSnapshot().keyChanges).toBe(pending);

      const shown = owner.getSnapshot().safety.get('bob')!.fingerprint;
      expect(await owner.confirmKey('bob', shown)).toBe(true);
      await refreshMembers(server, owner);
      expect(owner.getSnapshot().keyChanges).toEqual([
        { memberId: 'bob', at: server.links.at(-1)!.at, pending: false },
      ]);
      // Bob's own tab shows no key change of his own.
      await locked.sync();
      expect(locked.getSnapshot().keyChanges).toEqual([]);

      // His other tab still held the replaced identity: it locks and asks for the new passphrase.
      expect(bob.getSnapshot().status).toBe('active');
      await refreshMembers(server, bob);
      await expect.poll(() => bob.getSnapshot().phase).toBe('unlock');
      expect(bob.getSnapshot()).toMatchObject({ status: 'locked', error: KEYS_REPLACED_TEXT });
      expect(bob.signingKey).toBeNull();
      expect(bob.currentEpochKey()).toBeUndefined();
      expect(await bob.unlock('la nouvelle phrase de bob')).toBe(true);
      await bob.sync();
      expect(bob.getSnapshot().status).toBe('active');
    },
  );

  it(
    'an unlocked reset is not taken for a reset on another device when the members list shows the new key first',
    SLOW,
    async () => {
      const { server } = await ownerAndBob();
      // The room's tab: unlocked, with a members list that refreshes as soon as the server says the
      // key changed (the socket's signal), before this browser has finished its own reset.
      const api = server.api('bob');
      let slowRecord: Promise<void> | null = null;
      let release = () => {};
      const bob = new Keyring({
        ringId: server.ringId,
        memberId: 'bob',
        level: () => server.level,
        role: () => server.members.get('bob')!.role,
        localTrust: memoryLocalTrustStore(),
        api: {
          ...api,
          getMemberKey: async () => {
            // A record read that answers late (after the reset below is over).
            if (slowRecord) await slowRecord;
            return api.getMemberKey();
          },
          saveMemberKey: async (body) => {
            const saved = await api.saveMemberKey(body);
            if (body.reset) {
              slowRecord = new Promise<void>((resolve) => (release = resolve));
              await bob.setMembers(await api.getMembers(true));
            }
            return saved;
          },
        },
      });
      await bob.load();
      expect(await bob.unlock(BOB_PHRASE)).toBe(true);
      await bob.sync();
      expect(await bob.resetKeys('nouvelle phrase de bob')).toBe(true);
      release();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(bob.getSnapshot()).toMatchObject({ phase: 'ready', error: null });
      expect(bob.getSnapshot().recoveryKey).toEqual(expect.any(String));
      expect(bob.signingKey).not.toBeNull();
    },
  );

  it('a popup adopts the room’s unlocked keys without a passphrase', SLOW, async () => {
    const { server, owner } = await ownerAndBob();
    const transfer = owner.exportTransfer()!;
    const popup = tab(server, 'owner');
    popup.markWaitingForOpener(true);
    expect(popup.getSnapshot().status).toBe('locked');
    await popup.adopt(transfer);
    await popup.sync();
    expect(popup.getSnapshot().status).toBe('active');
    expect(popup.currentEpochKey()!.epoch).toBe(2);
    expect(tab(server, 'bob').exportTransfer()).toBeNull();

    // It gets the room's verified log too: a call popup knows its peer's key without reading the
    // log first (here the log cannot be read at all).
    const offline = new Keyring({
      ringId: server.ringId,
      memberId: 'owner',
      level: () => server.level,
      role: () => 'owner',
      api: { ...server.api('owner'), getLog: () => Promise.reject(new Error('hors ligne')) },
      localTrust: memoryLocalTrustStore(),
    });
    await offline.adopt(owner.exportTransfer()!);
    expect(await offline.verifyKeysOf('bob')).toHaveLength(1);
  });

  it('without WebCrypto (a page served over plain http) it fails with the HTTPS message and calls nothing', async () => {
    const server = new FakeKeyServer();
    server.addMember('owner', 'owner');
    const owner = tab(server, 'owner');
    vi.stubGlobal('crypto', undefined);
    try {
      await owner.load();
    } finally {
      vi.unstubAllGlobals();
    }
    expect(owner.getSnapshot()).toMatchObject({
      status: 'failed',
      phase: 'load_failed',
      error: INSECURE_CONTEXT,
    });
  });
});
