import { type Bytes, assertWireId, concatBytes, encodeFields, fromBase64 } from './encoding';
import { E2eeError } from './errors';
import { type EpochKey } from './epoch-keys';
import { importAgreementPublicKey } from './identity';
import { LEVEL_PARAMETERS } from './levels';

const CONVERSATION_DOMAIN = 'securering/conversation-key/v1';
const KEY_256_BYTES = 32;
const X25519_BYTES = 32;

const subtle = () => globalThis.crypto.subtle;

/** The two members of a private conversation, each with its X25519 public key (raw bytes). */
interface Party {
  memberId: string;
  x25519: Bytes;
}

function importAesKey(raw: Bytes): Promise<CryptoKey> {
  return subtle().importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/**
 * The key of one private conversation (DM) under one epoch, for `encryptMessage`/`decryptMessage`.
 *
 * A DM sealed under the Ring's epoch key alone could be read by every other member holding that
 * key (should the server leak the ciphertext to them). This key needs both secrets:
 * - the epoch key material (so the removed-member rule still holds: a member who lost the epoch
 *   cannot compute it), and
 * - the X25519 shared secret of the two members' identity keys (so only the two can compute it).
 *
 * HKDF-SHA-256: IKM = ECDH(me, peer) ‖ epoch material, salt = the domain string, info = Ring,
 * conversation, epoch, level and both members (ids and public keys) in member-id order, so both
 * sides derive the same bytes and a key of one conversation, epoch or pair never fits another.
 * The result has the `EpochKey` shape of the same level (AES-128 or AES-256, plus the independent
 * inner AES-256 layer at military) and is tagged with its `conversationId`: the envelope refuses it
 * for any other conversation, and it cannot be wrapped to anyone. Keep it in memory only.
 */
export async function deriveConversationKey(
  epochKey: EpochKey,
  options: {
    myMemberId: string;
    myAgreementKeyPair: CryptoKeyPair;
    peerMemberId: string;
    peerX25519PublicB64: string;
    ringId: string;
    conversationId: string;
  },
): Promise<EpochKey> {
  const { myMemberId, myAgreementKeyPair, peerMemberId, peerX25519PublicB64, ringId, conversationId } =
    options;
  assertWireId(myMemberId, 'myMemberId');
  assertWireId(peerMemberId, 'peerMemberId');
  assertWireId(ringId, 'ringId');
  assertWireId(conversationId, 'conversationId');
  if (myMemberId === peerMemberId) {
    throw new E2eeError('invalid_format', 'a private conversation needs two different members');
  }
  if (epochKey.conversationId !== undefined) {
    throw new E2eeError('invalid_format', 'derive from the Ring epoch key, not from a conversation key');
  }
  if (epochKey.ringId !== ringId) {
    throw new E2eeError('invalid_format', 'the epoch key belongs to another Ring');
  }

  const peerPublicKey = await importAgreementPublicKey(peerX25519PublicB64);
  const myPublic = new Uint8Array(await subtle().exportKey('raw', myAgreementKeyPair.publicKey));
  const peerPublic = fromBase64(peerX25519PublicB64);
  if (myPublic.length !== X25519_BYTES) throw new E2eeError('invalid_format', 'x25519: expected 32 bytes');

  let shared: Bytes;
  try {
    shared = new Uint8Array(
      await subtle().deriveBits(
        { name: 'X25519', public: peerPublicKey },
        myAgreementKeyPair.privateKey,
        256,
      ),
    );
  } catch {
    // Low-order points make some implementations refuse outright.
    throw new E2eeError('invalid_format', 'the peer key is not a usable X25519 key');
  }
  // A low-order peer point gives an all-zero secret (RFC 7748 §6.1): refuse it.
  if (shared.every((byte) => byte === 0)) {
    throw new E2eeError('invalid_format', 'the peer key is not a usable X25519 key');
  }

  const parties: Party[] = [
    { memberId: myMemberId, x25519: myPublic },
    { memberId: peerMemberId, x25519: peerPublic },
  ].sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
  const [first, second] = parties as [Party, Party];
  const info = encodeFields(
    CONVERSATION_DOMAIN,
    ringId,
    conversationId,
    String(epochKey.epoch),
    epochKey.level,
    first.memberId,
    first.x25519,
    second.memberId,
    second.x25519,
  );

  const { keyBytes, doubleLayer } = LEVEL_PARAMETERS[epochKey.level];
  const length = keyBytes + (doubleLayer ? KEY_256_BYTES : 0);
  const ikm = concatBytes(shared, epochKey.material);
  let derived: Bytes;
  try {
    const hkdfKey = await subtle().importKey('raw', ikm, 'HKDF', false, ['deriveBits']);
    derived = new Uint8Array(
      await subtle().deriveBits(
        { name: 'HKDF', hash: 'SHA-256', salt: encodeFields(CONVERSATION_DOMAIN), info },
        hkdfKey,
        length * 8,
      ),
    );
  } finally {
    shared.fill(0);
    ikm.fill(0);
  }
  const messageKeyBytes = derived.slice(0, keyBytes);
  const innerKeyBytes = doubleLayer ? derived.slice(keyBytes) : undefined;
  const key: EpochKey = {
    ringId,
    epoch: epochKey.epoch,
    level: epochKey.level,
    conversationId,
    messageKey: await importAesKey(messageKeyBytes),
    innerKey: innerKeyBytes ? await importAesKey(innerKeyBytes) : undefined,
    // Same layout as an epoch key (message key ‖ names key ‖ inner key); the Ring names key is
    // unchanged (it is not used for messages).
    namesKey: epochKey.namesKey,
    material: concatBytes(messageKeyBytes, epochKey.namesKey, innerKeyBytes ?? new Uint8Array(0)),
  };
  derived.fill(0);
  return key;
}
