// A Ring's life across a member removal: what the removed member can and cannot read afterwards.
import { describe, expect, it } from 'vitest';
import { decryptMessage, encryptMessage, type MessageHeader } from './envelope';
import {
  type EpochKey,
  type EpochKeyShare,
  generateEpochKey,
  unwrapEpochKey,
  wrapEpochKeyFor,
} from './epoch-keys';
import { generateFileKey, unwrapFileKey, wrapFileKey } from './file-stream';
import { type Identity, exportPublicIdentity, generateIdentity } from './identity';
import { decryptName, encryptName } from './names';
import { expectCode } from './test-support';

const RING = 'ring-1';
const ROOM = { ringId: RING, conversationId: 'room:general' };

async function member(memberId: string) {
  const identity: Identity = await generateIdentity();
  return { memberId, identity, published: await exportPublicIdentity(identity) };
}
type Member = Awaited<ReturnType<typeof member>>;

function shareTo(key: EpochKey, to: Member, from: Member): Promise<EpochKeyShare> {
  return wrapEpochKeyFor(
    key,
    { memberId: to.memberId, x25519PublicB64: to.published.x25519 },
    { memberId: from.memberId, signingPrivateKey: from.identity.signing.privateKey },
  );
}

function open(share: EpochKeyShare, who: Member, sender: Member, asMemberId = who.memberId) {
  return unwrapEpochKey(
    share,
    { memberId: asMemberId, agreementKeyPair: who.identity.agreement },
    sender.published.ed25519,
    { ringId: RING },
  );
}

function header(epoch: number, sender: Member, id: string): MessageHeader {
  return {
    v: 1,
    ...ROOM,
    epoch,
    senderId: sender.memberId,
    clientMessageId: id,
    sentAt: new Date().toISOString(),
  };
}

describe('member removal', () => {
  it.each(['standard', 'military'] as const)(
    'level %s: a removed member cannot read any epoch created after the removal',
    async (level) => {
      const [a, b, c] = await Promise.all([member('A'), member('B'), member('C')]);
      const verifyKeys = new Map([a, b, c].map((m) => [m.memberId, m.identity.signing.publicKey]));

      // Epoch 1, created by A, shared to A, B and C.
      const epoch1 = await generateEpochKey({ ringId: RING, epoch: 1, level });
      const shares1 = new Map(
        await Promise.all([a, b, c].map(async (m) => [m.memberId, await shareTo(epoch1, m, a)] as const)),
      );
      const cEpoch1 = await open(shares1.get('C')!, c, a);
      const before = await encryptMessage(
        header(1, b, 'm1'),
        'avant le départ de C',
        epoch1,
        b.identity.signing.privateKey,
      );
      const cKeys = new Map([[1, cEpoch1]]);
      const cLookups = {
        epochKey: (n: number) => cKeys.get(n),
        senderVerifyKey: (id: string) => verifyKeys.get(id),
      };
      await expect(decryptMessage(before, ROOM, cLookups)).resolves.toMatchObject({
        plaintext: 'avant le départ de C',
      });

      // C is removed: A creates epoch 2 (same names key) and shares it to A and B only.
      const epoch2 = await generateEpochKey({ ringId: RING, epoch: 2, level, namesKey: epoch1.namesKey });
      const shares2 = [await shareTo(epoch2, a, a), await shareTo(epoch2, b, a)];
      const bEpoch2 = await open(shares2[1]!, b, a);
      const after = await encryptMessage(
        header(2, a, 'm2'),
        'après le départ de C',
        epoch2,
        a.identity.signing.privateKey,
      );
      const bLookups = {
        epochKey: (n: number) => (n === 2 ? bEpoch2 : undefined),
        senderVerifyKey: (id: string) => verifyKeys.get(id),
      };
      await expect(decryptMessage(after, ROOM, bLookups)).resolves.toMatchObject({
        plaintext: 'après le départ de C',
      });

      // C holds every epoch-2 share and message, yet opens none of them.
      for (const share of shares2) {
        await expectCode(open(share, c, a), 'unverifiable');
        await expectCode(open(share, c, a, share.recipientMemberId), 'unverifiable');
      }
      await expectCode(decryptMessage(after, ROOM, cLookups), 'missing_key');
      // Trying the old key under the new epoch number fails too.
      const relabelled: EpochKey = { ...cEpoch1, epoch: 2 };
      await expectCode(
        decryptMessage(after, ROOM, { ...cLookups, epochKey: () => relabelled }),
        'unverifiable',
      );

      // Files uploaded after the removal: their keys are wrapped under epoch 2.
      const fileKey = generateFileKey();
      const wrapped = await wrapFileKey(fileKey, epoch2, { ringId: RING, fileId: 'f1' });
      expect(await unwrapFileKey(wrapped, bEpoch2, { ringId: RING, fileId: 'f1' })).toEqual(fileKey);
      await expectCode(unwrapFileKey(wrapped, relabelled, { ringId: RING, fileId: 'f1' }), 'unverifiable');

      // The names key is constant across epochs by design, so new members read existing names.
      // Known limit: C keeps it, so names created later leak to C if C obtains them from the
      // server; removing C for good needs a new names key and every name re-encrypted.
      expect(decryptName(bEpoch2.namesKey, RING, encryptName(epoch1.namesKey, RING, 'contrat.pdf'))).toBe(
        'contrat.pdf',
      );
    },
  );
});
