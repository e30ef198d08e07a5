import {
  dmConversationId,
  type TEpochKeyShare,
  type TKeyStateResponse,
  type TMemberKeyRecord,
  type TPendingShare,
  type TPublicKeys,
} from '@securering/contract';
import {
  LEGACY_KDF_ITERATIONS,
  generateIdentity,
  sealIdentity,
  exportPublicIdentity,
  type SecurityLevel,
} from '@securering/e2ee';
import { describe, expect, it, vi } from 'vitest';
import { INSECURE_CONTEXT, KeyCallConflict, Keyring, PeerKeyUnavailable, type KeyringApi } from './keyring';
import { memorySeenKeysStore } from './seen-keys-store';

/**
 * A small in-memory stand-in for the key endpoints (same rules as the contract: own shares only,
 * pending members, compare-and-set epochs, recipients must match the keyed members and their key
 * versions), so the keyring's flows run end to end with real crypto.
 */
class FakeKeyServer {
  readonly ringId = 'ring-1';
  level: SecurityLevel = 'basic';
  currentEpoch = 0;
  /** Raised by every write, as the server's key revision is. */
  keyRevision = 0;
  rotationDue = false;
  shareHistory = false;
  readonly epochs = new Map<number, SecurityLevel>();
  readonly members = new Map<
    string,
    {
      id: string;
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
  readonly calls: string[] = [];

  addMember(id: string) {
    this.members.set(id, {
      id,
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

  private keyed() {
    return [...this.members.values()].filter((m) => m.active && m.keyVersion > 0);
  }

  private firstReadable(id: string) {
    return this.shareHistory ? 0 : this.members.get(id)!.firstReadable;
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
        const first = this.firstReadable(memberId);
        const own = this.shares.filter(
          (s) => s.recipient === memberId && s.version === me().keyVersion && s.epoch >= first,
        );
        const held = [...new Set(own.map((s) => s.epoch))];
        const pending: TPendingShare[] = [];
        for (const other of this.keyed()) {
          if (other.id === memberId) continue;
          const has = this.held(other.id);
          const epochs = held.filter((e) => e >= this.firstReadable(other.id) && !has.has(e));
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
        };
      },
      rotate: async ({ epoch, level, shares, withheld, keyVersions }) => {
        assertActive();
        this.calls.push(`rotate:${memberId}:${epoch}:withheld=${withheld.join(',')}`);
        if (epoch !== this.currentEpoch + 1) throw new KeyCallConflict('epoch_conflict');
        if (level !== this.level) throw new Error('level');
        if (this.currentEpoch > 0 && !this.held(memberId).has(this.currentEpoch))
          throw new Error('not holder');
        const recipients = new Set(shares.map((s) => s.recipientMemberId));
        const expected = this.keyed().map((m) => m.id);
        if (
          expected.some((id) => !recipients.has(id) && !withheld.includes(id)) ||
          [...recipients].some((id) => !expected.includes(id))
        ) {
          throw new KeyCallConflict('members_changed');
        }
        for (const id of recipients)
          if (keyVersions[id] !== this.members.get(id)!.keyVersion)
            throw new KeyCallConflict('members_changed');
        this.currentEpoch = epoch;
        this.keyRevision += 1;
        this.rotationDue = false;
        this.epochs.set(epoch, level);
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
          const recipient = this.members.get(share.recipientMemberId)!;
          if (!this.held(memberId).has(share.epoch)) throw new Error('not holder');
          if (share.epoch < this.firstReadable(recipient.id)) throw new Error('not allowed');
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

/** One member's browser tab: its keyring and its own memory of seen keys. */
function tab(server: FakeKeyServer, memberId: string, seenKeys = memorySeenKeysStore()) {
  return new Keyring({
    ringId: server.ringId,
    memberId,
    level: () => server.level,
    api: server.api(memberId),
    seenKeys,
  });
}

/** The room reads the Ring's members (info.php) and tells the keyring. */
async function refreshMembers(server: FakeKeyServer, keyring: Keyring) {
  await keyring.setMembers(await server.api(keyring.memberId).getMembers(true));
}

const OWNER_PHRASE = 'phrase du propriétaire';
const BOB_PHRASE = 'phrase secrète de bob';
const SLOW = { timeout: 60_000 };

async function ownerAndBob() {
  const server = new FakeKeyServer();
  server.addMember('owner');
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

describe('keyring flows against the key endpoints', () => {
  it(
    'the first member creates epoch 1; the next one waits, then gets the key shared without any message',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      expect(server.currentEpoch).toBe(1);
      expect(owner.getSnapshot().status).toBe('active');
      // The session keys are the non-extractable ones of the saved record.
      expect(owner.signingKey?.extractable).toBe(false);
      expect(server.members.get('owner')!.record!.kdf_iters).toBe(600_000);

      expect(bob.getSnapshot().status).toBe('waiting_keys');
      expect(bob.currentEpochKey()).toBeUndefined();

      // keys_changed "needed" reaches the owner's tab: it reads the state and shares.
      await owner.sync();
      expect(server.calls).toContain('share:owner->bob:1');
      await bob.sync();
      expect(bob.getSnapshot().status).toBe('active');

      const { content } = await owner.encryptText('room:general', 'Bonjour Bob', owner.currentEpochKey()!);
      await refreshMembers(server, bob);
      expect((await bob.decryptText(content, 'room:general')).plaintext).toBe('Bonjour Bob');
      await expect(bob.decryptText(content, 'dm:x:y')).rejects.toMatchObject({ code: 'unverifiable' });
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

  it(
    'a key reset shows as a changed safety number: nothing is shared with the new key until confirmed',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      await owner.sync();
      await refreshMembers(server, owner);
      const before = owner.getSnapshot().safety.get('bob')!;
      expect(before.trust).toBe('trusted');
      expect(before.fingerprint).toMatch(/^\d{5}( \d{5}){5}$/);

      // The revision of the state each holds: the reset moved the Ring's past the owner's.
      const heldBefore = owner.keyRevision;
      expect(heldBefore).toBeDefined();
      expect(await bob.resetKeys('nouvelle phrase de bob')).toBe(true);
      await bob.sync();
      expect(bob.getSnapshot().status).toBe('waiting_keys');
      expect(owner.keyRevision).toBe(heldBefore);
      expect(bob.keyRevision).toBe(server.keyRevision);
      expect(server.keyRevision).toBeGreaterThan(heldBefore!);

      await refreshMembers(server, owner);
      const after = owner.getSnapshot().safety.get('bob')!;
      expect(after.trust).toBe('changed');
      expect(after.fingerprint).not.toBe(before.fingerprint);
      server.calls.length = 0;
      await owner.sync();
      expect(server.calls.filter((c) => c.startsWith('share:'))).toEqual([]);
      await bob.sync();
      expect(bob.getSnapshot().status).toBe('waiting_keys');

      // A rotation meanwhile withholds bob instead of wrapping for the unconfirmed key.
      server.rotationDue = true;
      const key = await owner.ensureSendableEpoch();
      expect(key.epoch).toBe(2);
      expect(server.calls).toContain('rotate:owner:2:withheld=bob');

      await owner.confirmKey('bob');
      await owner.sync();
      expect(server.calls).toContain('share:owner->bob:2');
      await bob.sync();
      expect(bob.getSnapshot().status).toBe('active');
      expect(bob.currentEpochKey()!.epoch).toBe(2);
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
      expect(key.epoch).toBe(2);
      expect(server.shares.filter((s) => s.recipient === 'bob').map((s) => s.epoch)).toEqual([1]);
      await expect(bob.sync()).resolves.toBeUndefined();
      expect(bob.epochKey(2)).toBeUndefined();
    },
  );

  it(
    'two members rotating at once: one wins, the other reads the state again and uses the winner’s epoch',
    SLOW,
    async () => {
      const { server, owner, bob } = await ownerAndBob();
      await owner.sync();
      await bob.sync();
      server.rotationDue = true;
      const [a, b] = await Promise.all([owner.ensureSendableEpoch(), bob.ensureSendableEpoch()]);
      expect(server.currentEpoch).toBe(2);
      expect(a.epoch).toBe(2);
      expect(b.epoch).toBe(2);
      expect(server.calls.filter((c) => c.startsWith('rotate:') && c.includes(':2:'))).toHaveLength(2);
      const { content } = await bob.encryptText('room:general', 'ok', b);
      await refreshMembers(server, owner);
      expect((await owner.decryptText(content, 'room:general')).plaintext).toBe('ok');
    },
  );

  it(
    'the level of the Ring sets the record iterations, and an older record is upgraded after unlock',
    SLOW,
    async () => {
      const server = new FakeKeyServer();
      server.level = 'high';
      server.addMember('owner');
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
      await expect.poll(() => member.record!.kdf_iters, { timeout: 30_000 }).toBe(1_000_000);
      expect(member.keyVersion).toBe(1);
      await owner.sync();
      expect(owner.currentEpochKey()!.level).toBe('high');
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
      await owner.sync();
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

      // A peer whose key changed without confirmation gets nothing encrypted for it.
      expect(await bob.resetKeys('nouvelle phrase de bob')).toBe(true);
      await refreshMembers(server, owner);
      await expect(owner.encryptText(dm, 'encore', owner.currentEpochKey()!)).rejects.toBeInstanceOf(
        PeerKeyUnavailable,
      );
      // What bob sent before its reset still reads (its earlier accepted key).
      expect((await owner.decryptText(reply.content, dm)).plaintext).toBe('Bien reçu');
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
    expect(popup.currentEpochKey()!.epoch).toBe(1);
    expect(tab(server, 'bob').exportTransfer()).toBeNull();
  });

  it('without WebCrypto (a page served over plain http) it fails with the HTTPS message and calls nothing', async () => {
    const server = new FakeKeyServer();
    server.addMember('owner');
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
