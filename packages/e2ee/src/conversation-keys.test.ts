import { describe, expect, it } from 'vitest';
import { deriveConversationKey } from './conversation-keys';
import { toBase64 } from './encoding';
import { type MessageHeader, type WireEnvelope, decryptMessage, encryptMessage } from './envelope';
import { type EpochKey, generateEpochKey, wrapEpochKeyFor } from './epoch-keys';
import { type Identity, exportPublicIdentity, generateIdentity } from './identity';
import { SECURITY_LEVELS, type SecurityLevel } from './levels';
import { expectCode, flipBase64, sameBytes } from './test-support';

const RING = 'ring-1';
const DM = 'dm:alice:bob';

async function member(memberId: string) {
  const identity: Identity = await generateIdentity();
  return { memberId, identity, published: await exportPublicIdentity(identity) };
}
type Member = Awaited<ReturnType<typeof member>>;

function keyOf(epochKey: EpochKey, me: Member, peer: Member, conversationId = DM) {
  return deriveConversationKey(epochKey, {
    myMemberId: me.memberId,
    myAgreementKeyPair: me.identity.agreement,
    peerMemberId: peer.memberId,
    peerX25519PublicB64: peer.published.x25519,
    ringId: RING,
    conversationId,
  });
}

function header(sender: Member, epoch = 1, conversationId = DM): MessageHeader {
  return {
    v: 1,
    ringId: RING,
    conversationId,
    epoch,
    senderId: sender.memberId,
    clientMessageId: crypto.randomUUID(),
    sentAt: '2026-11-24T10:00:00.000Z',
  };
}

async function setup(level: SecurityLevel = 'standard') {
  const [alice, bob, carol] = await Promise.all([member('alice'), member('bob'), member('carol')]);
  const epoch = await generateEpochKey({ ringId: RING, epoch: 1, level });
  const verify = new Map([alice, bob, carol].map((m) => [m.memberId, m.identity.signing.publicKey]));
  const lookups = (key: EpochKey | undefined) => ({
    epochKey: () => key,
    senderVerifyKey: (id: string) => verify.get(id),
  });
  return { alice, bob, carol, epoch, lookups };
}

describe('private conversation keys', () => {
  it.each(SECURITY_LEVELS)(
    'level %s: both members derive the same key and read each other',
    async (level) => {
      const { alice, bob, epoch, lookups } = await setup(level);
      const aliceKey = await keyOf(epoch, alice, bob);
      const bobKey = await keyOf(epoch, bob, alice);
      expect(sameBytes(aliceKey.material, bobKey.material)).toBe(true);
      expect(aliceKey).toMatchObject({ ringId: RING, epoch: 1, level, conversationId: DM });
      expect(Boolean(aliceKey.innerKey)).toBe(level === 'military');
      // The derived message key is not the Ring's epoch key.
      expect(sameBytes(aliceKey.material, epoch.material)).toBe(false);

      const fromAlice = await encryptMessage(
        header(alice),
        'Salut Bob, en privé',
        aliceKey,
        alice.identity.signing.privateKey,
      );
      expect(
        await decryptMessage(fromAlice, { ringId: RING, conversationId: DM }, lookups(bobKey)),
      ).toMatchObject({
        plaintext: 'Salut Bob, en privé',
      });
      const fromBob = await encryptMessage(header(bob), 'Bien reçu', bobKey, bob.identity.signing.privateKey);
      expect(
        await decryptMessage(fromBob, { ringId: RING, conversationId: DM }, lookups(aliceKey)),
      ).toMatchObject({
        plaintext: 'Bien reçu',
      });
    },
  );

  it.each(['standard', 'military'] as const)(
    'level %s: a third member holding the epoch key cannot read the conversation',
    async (level) => {
      const { alice, bob, carol, epoch, lookups } = await setup(level);
      const aliceKey = await keyOf(epoch, alice, bob);
      const envelope = await encryptMessage(
        header(alice),
        'secret',
        aliceKey,
        alice.identity.signing.privateKey,
      );
      const where = { ringId: RING, conversationId: DM };
      // The Ring's epoch key alone does not open it...
      await expectCode(decryptMessage(envelope, where, lookups(epoch)), 'unverifiable');
      // ...nor does any key carol can derive with her own identity and a participant's public key.
      await expectCode(
        decryptMessage(envelope, where, lookups(await keyOf(epoch, carol, alice))),
        'unverifiable',
      );
      await expectCode(
        decryptMessage(envelope, where, lookups(await keyOf(epoch, carol, bob))),
        'unverifiable',
      );
      // Carol cannot pose as bob either: the pairwise secret needs bob's private key.
      const posing = await deriveConversationKey(epoch, {
        myMemberId: 'bob',
        myAgreementKeyPair: carol.identity.agreement,
        peerMemberId: 'alice',
        peerX25519PublicB64: alice.published.x25519,
        ringId: RING,
        conversationId: DM,
      });
      await expectCode(decryptMessage(envelope, where, lookups(posing)), 'unverifiable');
    },
  );

  it('needs the epoch key too: the same pair under another epoch key gets another key', async () => {
    const { alice, bob, epoch, lookups } = await setup();
    const sameNumber = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
    const aliceKey = await keyOf(epoch, alice, bob);
    const withOtherEpochMaterial = await keyOf(sameNumber, bob, alice);
    expect(sameBytes(aliceKey.material, withOtherEpochMaterial.material)).toBe(false);
    const envelope = await encryptMessage(
      header(alice),
      'secret',
      aliceKey,
      alice.identity.signing.privateKey,
    );
    await expectCode(
      decryptMessage(envelope, { ringId: RING, conversationId: DM }, lookups(withOtherEpochMaterial)),
      'unverifiable',
    );
  });

  it('gives a different key for a different epoch, conversation or Ring context', async () => {
    const { alice, bob, epoch } = await setup();
    const epoch2 = await generateEpochKey({
      ringId: RING,
      epoch: 2,
      level: 'standard',
      namesKey: epoch.namesKey,
    });
    const k1 = await keyOf(epoch, alice, bob);
    const k2 = await keyOf(epoch2, alice, bob);
    expect(k2.epoch).toBe(2);
    expect(sameBytes(k1.material.slice(0, 32), k2.material.slice(0, 32))).toBe(false);
    const otherConversation = await keyOf(epoch, alice, bob, 'dm:alice:bob2');
    expect(sameBytes(k1.material.slice(0, 32), otherConversation.material.slice(0, 32))).toBe(false);
  });

  it('rejects tampering and a key used in another conversation', async () => {
    const { alice, bob, epoch, lookups } = await setup('military');
    const aliceKey = await keyOf(epoch, alice, bob);
    const bobKey = await keyOf(epoch, bob, alice);
    const envelope = await encryptMessage(
      header(alice),
      'secret',
      aliceKey,
      alice.identity.signing.privateKey,
    );
    const where = { ringId: RING, conversationId: DM };
    const wire = JSON.parse(envelope) as WireEnvelope;
    for (const change of [
      (w: WireEnvelope) => (w.ct = flipBase64(w.ct, 3)),
      (w: WireEnvelope) => (w.iv = flipBase64(w.iv)),
      (w: WireEnvelope) => (w.sig = flipBase64(w.sig, 5)),
      (w: WireEnvelope) => (w.m = 'another-id'),
    ]) {
      const copy = { ...wire };
      change(copy);
      await expectCode(decryptMessage(JSON.stringify(copy), where, lookups(bobKey)), 'unverifiable');
    }
    // A conversation key encrypts and decrypts only its own conversation.
    await expectCode(
      encryptMessage(header(alice, 1, 'room:general'), 'x', aliceKey, alice.identity.signing.privateKey),
      'invalid_format',
    );
    const moved = JSON.stringify({ ...wire, c: 'room:general' });
    await expectCode(
      decryptMessage(moved, { ringId: RING, conversationId: 'room:general' }, lookups(bobKey)),
      'unverifiable',
    );
  });

  it('is never shared, never derived twice, and refuses unusable inputs', async () => {
    const { alice, bob, epoch } = await setup();
    const aliceKey = await keyOf(epoch, alice, bob);
    await expectCode(
      wrapEpochKeyFor(
        aliceKey,
        { memberId: 'bob', x25519PublicB64: bob.published.x25519 },
        { memberId: 'alice', signingPrivateKey: alice.identity.signing.privateKey },
      ),
      'invalid_format',
    );
    await expectCode(keyOf(aliceKey, alice, bob), 'invalid_format');
    await expectCode(keyOf(epoch, alice, { ...bob, memberId: 'alice' }), 'invalid_format');
    await expectCode(
      deriveConversationKey(epoch, {
        myMemberId: 'alice',
        myAgreementKeyPair: alice.identity.agreement,
        peerMemberId: 'bob',
        peerX25519PublicB64: bob.published.x25519,
        ringId: 'ring-2',
        conversationId: DM,
      }),
      'invalid_format',
    );
    // The all-zero point (low order) would give an all-zero shared secret.
    await expectCode(
      deriveConversationKey(epoch, {
        myMemberId: 'alice',
        myAgreementKeyPair: alice.identity.agreement,
        peerMemberId: 'bob',
        peerX25519PublicB64: toBase64(new Uint8Array(32)),
        ringId: RING,
        conversationId: DM,
      }),
      'invalid_format',
    );
  });
});
