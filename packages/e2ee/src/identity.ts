import { type Bytes, concatBytes, encodeFields, fromBase64, toBase64 } from './encoding';
import { E2eeError } from './errors';

/**
 * A member's long-term keys: X25519 to receive epoch keys (HPKE), Ed25519 to sign messages, key
 * shares and call fingerprints. After `openIdentity` the private keys are non-extractable.
 */
export interface Identity {
  readonly agreement: CryptoKeyPair;
  readonly signing: CryptoKeyPair;
}

/** The public half of an identity, as published to the Ring: raw 32-byte keys in base64. */
export interface PublicIdentity {
  readonly x25519: string;
  readonly ed25519: string;
}

const KEY_BYTES = 32;
// RFC 8410 PKCS#8 wrappers of a raw 32-byte private key (X25519: OID 1.3.101.110, Ed25519: 112).
const PKCS8_X25519 = new Uint8Array([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20,
]);
const PKCS8_ED25519 = new Uint8Array([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
/** Size of the serialized key material sealed in a member key record. */
export const IDENTITY_KEYS_BYTES = 4 * KEY_BYTES;

const subtle = () => globalThis.crypto.subtle;

/**
 * A new identity. Its private keys are extractable because `sealIdentity` must encrypt them:
 * seal it right away and, for the session, prefer the identity returned by `openIdentity`.
 */
export async function generateIdentity(): Promise<Identity> {
  const agreement = (await subtle().generateKey('X25519', true, ['deriveBits'])) as CryptoKeyPair;
  const signing = (await subtle().generateKey('Ed25519', true, ['sign', 'verify'])) as CryptoKeyPair;
  return { agreement, signing };
}

async function rawPublic(key: CryptoKey): Promise<Bytes> {
  return new Uint8Array(await subtle().exportKey('raw', key));
}

async function rawPrivate(key: CryptoKey, prefix: Uint8Array): Promise<Bytes> {
  if (!key.extractable) throw new E2eeError('invalid_format', 'private key is not extractable');
  const pkcs8 = new Uint8Array(await subtle().exportKey('pkcs8', key));
  if (pkcs8.length !== prefix.length + KEY_BYTES || prefix.some((byte, i) => pkcs8[i] !== byte)) {
    throw new E2eeError('invalid_format', 'unexpected PKCS#8 encoding');
  }
  return pkcs8.slice(prefix.length);
}

/** Serializes an extractable identity: X25519 private ‖ public ‖ Ed25519 private ‖ public. */
export async function exportIdentityKeys(identity: Identity): Promise<Bytes> {
  return concatBytes(
    await rawPrivate(identity.agreement.privateKey, PKCS8_X25519),
    await rawPublic(identity.agreement.publicKey),
    await rawPrivate(identity.signing.privateKey, PKCS8_ED25519),
    await rawPublic(identity.signing.publicKey),
  );
}

/** Rebuilds an identity from `exportIdentityKeys` output, with non-extractable private keys. */
export async function importIdentityKeys(bytes: Uint8Array): Promise<Identity> {
  if (bytes.length !== IDENTITY_KEYS_BYTES) throw new E2eeError('invalid_format', 'identity keys size');
  const part = (index: number) => bytes.slice(index * KEY_BYTES, (index + 1) * KEY_BYTES);
  const agreementPrivate = concatBytes(PKCS8_X25519, part(0));
  const signingPrivate = concatBytes(PKCS8_ED25519, part(2));
  try {
    return {
      agreement: {
        privateKey: await subtle().importKey('pkcs8', agreementPrivate, 'X25519', false, ['deriveBits']),
        publicKey: await subtle().importKey('raw', part(1), 'X25519', true, []),
      },
      signing: {
        privateKey: await subtle().importKey('pkcs8', signingPrivate, 'Ed25519', false, ['sign']),
        publicKey: await subtle().importKey('raw', part(3), 'Ed25519', true, ['verify']),
      },
    };
  } finally {
    agreementPrivate.fill(0);
    signingPrivate.fill(0);
  }
}

/** The public keys to publish for this identity. */
export async function exportPublicIdentity(identity: Identity): Promise<PublicIdentity> {
  return {
    x25519: toBase64(await rawPublic(identity.agreement.publicKey)),
    ed25519: toBase64(await rawPublic(identity.signing.publicKey)),
  };
}

function decodePublicKey(value: unknown, field: string): Bytes {
  const bytes = typeof value === 'string' ? fromBase64(value) : undefined;
  if (bytes?.length !== KEY_BYTES) throw new E2eeError('invalid_format', `${field}: expected a 32-byte key`);
  return bytes;
}

/** Whether two published identities are the same keys (both halves). */
export function samePublicIdentity(a: PublicIdentity, b: PublicIdentity): boolean {
  return a.x25519 === b.x25519 && a.ed25519 === b.ed25519;
}

/** Imports a member's X25519 public key (base64 raw), the recipient of epoch key shares. */
export async function importAgreementPublicKey(x25519B64: string): Promise<CryptoKey> {
  const raw = decodePublicKey(x25519B64, 'x25519');
  return subtle().importKey('raw', raw, 'X25519', true, []);
}

/** Imports a member's Ed25519 public key (base64 raw), to verify what they signed. */
export async function importVerifyKey(ed25519B64: string): Promise<CryptoKey> {
  const raw = decodePublicKey(ed25519B64, 'ed25519');
  return subtle().importKey('raw', raw, 'Ed25519', true, ['verify']);
}

/** Imports both public keys of a published identity (throws `invalid_format` on bad input). */
export async function importPublicIdentity(
  publicIdentity: PublicIdentity,
): Promise<{ agreementPublicKey: CryptoKey; verifyKey: CryptoKey }> {
  return {
    agreementPublicKey: await importAgreementPublicKey(publicIdentity.x25519),
    verifyKey: await importVerifyKey(publicIdentity.ed25519),
  };
}

/**
 * A safety number two members compare out of band ("12345 67890 ..."): SHA-256 over a domain
 * string and both raw public keys; six 5-byte slices, each read as a big-endian integer mod 10^5
 * (Signal's display format), so 30 digits, about 100 bits.
 */
export async function fingerprint(publicIdentity: PublicIdentity): Promise<string> {
  const input = encodeFields(
    'securering/fingerprint/v1',
    decodePublicKey(publicIdentity.x25519, 'x25519'),
    decodePublicKey(publicIdentity.ed25519, 'ed25519'),
  );
  const hash = new Uint8Array(await subtle().digest('SHA-256', input));
  const groups: string[] = [];
  for (let group = 0; group < 6; group++) {
    let value = 0;
    for (const byte of hash.subarray(group * 5, group * 5 + 5)) value = value * 256 + byte;
    groups.push(String(value % 100_000).padStart(5, '0'));
  }
  return groups.join(' ');
}
