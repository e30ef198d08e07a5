import { describe, expect, it } from 'vitest';
import { toBase64 } from './encoding';
import {
  type EpochKey,
  type EpochKeyShare,
  generateEpochKey,
  parseEpochKeyShare,
  unwrapEpochKey,
  wrapEpochKeyFor,
} from './epoch-keys';
import { type Identity, exportPublicIdentity, generateIdentity } from './identity';
import { SECURITY_LEVELS } from './levels';
import { expectCode, expectThrowsCode, flipBase64 } from './test-support';

const RING = 'ring-1';
const subtle = globalThis.crypto.subtle;

async function member(memberId: string) {
  const identity = await generateIdentity();
  return { memberId, identity, published: await exportPublicIdentity(identity) };
}

async function roundTripsMessages(a: CryptoKey, b: CryptoKey): Promise<boolean> {
  const iv = new Uint8Array(12);
  const ct = await subtle.encrypt({ name: 'AES-GCM', iv }, a, new Uint8Array([1, 2, 3]));
  try {
    return new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv }, b, ct)).join() === '1,2,3';
  } catch {
    return false;
  }
}

function wrapFor(
  key: EpochKey,
  to: { memberId: string; published: { x25519: string } },
  from: { memberId: string; identity: Identity },
) {
  return wrapEpochKeyFor(
    key,
    { memberId: to.memberId, x25519PublicB64: to.published.x25519 },
    { memberId: from.memberId, signingPrivateKey: from.identity.signing.privateKey },
  );
}

function me(m: { memberId: string; identity: Identity }) {
  return { memberId: m.memberId, agreementKeyPair: m.identity.agreement };
}

describe('epoch keys', () => {
  it.each(SECURITY_LEVELS)(
    'level %s: a wrapped epoch key unwraps to the same keys for its recipient',
    async (level) => {
      const [alice, bob] = await Promise.all([member('alice'), member('bob')]);
      const key = await generateEpochKey({ ringId: RING, epoch: 3, level });
      expect(key.messageKey.extractable).toBe(false);
      expect((key.messageKey.algorithm as AesKeyAlgorithm).length).toBe(level === 'basic' ? 128 : 256);
      expect(key.innerKey !== undefined).toBe(level === 'military');
      expect(key.namesKey).toHaveLength(32);

      const share = await wrapFor(key, bob, alice);
      expect(share).toMatchObject({
        v: 1,
        ringId: RING,
        epoch: 3,
        level,
        recipientMemberId: 'bob',
        senderMemberId: 'alice',
      });
      expect(parseEpochKeyShare(JSON.parse(JSON.stringify(share)))).toEqual(share);

      const opened = await unwrapEpochKey(share, me(bob), alice.published.ed25519, { ringId: RING });
      expect(opened).toMatchObject({ ringId: RING, epoch: 3, level });
      expect(opened.material).toEqual(key.material);
      expect(opened.namesKey).toEqual(key.namesKey);
      expect(await roundTripsMessages(key.messageKey, opened.messageKey)).toBe(true);
      if (level === 'military') {
        expect(await roundTripsMessages(key.innerKey!, opened.innerKey!)).toBe(true);
        expect(await roundTripsMessages(key.messageKey, opened.innerKey!)).toBe(false);
      }
    },
  );

  it('keeps the Ring names key across epochs when given, else creates one', async () => {
    const first = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
    const second = await generateEpochKey({
      ringId: RING,
      epoch: 2,
      level: 'military',
      namesKey: first.namesKey,
    });
    const other = await generateEpochKey({ ringId: RING, epoch: 2, level: 'standard' });
    expect(second.namesKey).toEqual(first.namesKey);
    expect(other.namesKey).not.toEqual(first.namesKey);
    expect(await roundTripsMessages(first.messageKey, other.messageKey)).toBe(false);
    await expectCode(generateEpochKey({ ringId: RING, epoch: 0, level: 'standard' }), 'invalid_format');
    await expectCode(
      generateEpochKey({ ringId: RING, epoch: 1, level: 'quantum' as 'high' }),
      'invalid_format',
    );
    await expectCode(
      generateEpochKey({ ringId: RING, epoch: 1, level: 'high', namesKey: new Uint8Array(16) }),
      'invalid_format',
    );
  });

  it('rejects every altered share field as unverifiable', async () => {
    const [alice, bob] = await Promise.all([member('alice'), member('bob')]);
    const key = await generateEpochKey({ ringId: RING, epoch: 5, level: 'standard' });
    const share = await wrapFor(key, bob, alice);
    const cases: [string, EpochKeyShare, string?, string?][] = [
      ['enc', { ...share, enc: flipBase64(share.enc, 0) }],
      ['ct', { ...share, ct: flipBase64(share.ct, 10) }],
      ['ct tag', { ...share, ct: flipBase64(share.ct, -1) }],
      ['sig', { ...share, sig: flipBase64(share.sig, 40) }],
      ['epoch', { ...share, epoch: 6 }],
      ['level (same key size)', { ...share, level: 'high' }],
      ['sender', { ...share, senderMemberId: 'carol' }],
      ['ring (and expected ring)', { ...share, ringId: 'ring-2' }, 'ring-2'],
      ['recipient (and me)', { ...share, recipientMemberId: 'carol' }, RING, 'carol'],
    ];
    for (const [, altered, ringId = RING, memberId = 'bob'] of cases) {
      await expectCode(
        unwrapEpochKey(
          altered,
          { memberId, agreementKeyPair: bob.identity.agreement },
          alice.published.ed25519,
          {
            ringId,
          },
        ),
        'unverifiable',
      );
    }
    await expect(
      unwrapEpochKey(share, me(bob), alice.published.ed25519, { ringId: RING }),
    ).resolves.toBeDefined();
  });

  it('is refused for another Ring, another member, another key or another sender', async () => {
    const [alice, bob, carol] = await Promise.all([member('alice'), member('bob'), member('carol')]);
    const key = await generateEpochKey({ ringId: RING, epoch: 1, level: 'high' });
    const share = await wrapFor(key, bob, alice);
    await expectCode(
      unwrapEpochKey(share, me(bob), alice.published.ed25519, { ringId: 'ring-2' }),
      'unverifiable',
    );
    await expectCode(
      unwrapEpochKey(share, me(carol), alice.published.ed25519, { ringId: RING }),
      'unverifiable',
    );
    // Carol claiming to be Bob still lacks Bob's private key.
    await expectCode(
      unwrapEpochKey(
        share,
        { memberId: 'bob', agreementKeyPair: carol.identity.agreement },
        alice.published.ed25519,
        {
          ringId: RING,
        },
      ),
      'unverifiable',
    );
    // A share signed by Carol but labelled as sent by Alice does not verify with Alice's key.
    const forged = await wrapFor(key, bob, { memberId: 'alice', identity: carol.identity });
    await expectCode(
      unwrapEpochKey(forged, me(bob), alice.published.ed25519, { ringId: RING }),
      'unverifiable',
    );
  });

  it('refuses to wrap for a malformed or low-order recipient key', async () => {
    const alice = await member('alice');
    const key = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
    const sender = { memberId: 'alice', signingPrivateKey: alice.identity.signing.privateKey };
    for (const x25519PublicB64 of [toBase64(new Uint8Array(32)), toBase64(new Uint8Array(31)), '???']) {
      await expectCode(wrapEpochKeyFor(key, { memberId: 'bob', x25519PublicB64 }, sender), 'invalid_format');
    }
  });

  it('parses shares strictly', async () => {
    const [alice, bob] = await Promise.all([member('alice'), member('bob')]);
    const share = await wrapFor(
      await generateEpochKey({ ringId: RING, epoch: 1, level: 'basic' }),
      bob,
      alice,
    );
    const bad: unknown[] = [
      { ...share, extra: 1 },
      { ...share, v: 2 },
      { ...share, epoch: '1' },
      { ...share, level: 'quantum' },
      { ...share, level: 'standard' }, // ct size no longer matches the level
      { ...share, enc: toBase64(new Uint8Array(31)) },
      { ...share, sig: share.sig.slice(4) },
      { ...share, recipientMemberId: '' },
      'share',
    ];
    for (const value of bad) expectThrowsCode(() => parseEpochKeyShare(value), 'invalid_format');
  });
});
