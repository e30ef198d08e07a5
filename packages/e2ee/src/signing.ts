import { type Bytes, encodeFields } from './encoding';
import { E2eeError } from './errors';

/** Length of an Ed25519 signature. */
export const SIGNATURE_BYTES = 64;

const subtle = () => globalThis.crypto.subtle;

function signedInput(domain: string, bytes: Uint8Array): Bytes {
  if (!/^[\x21-\x7e]{1,64}$/.test(domain)) throw new E2eeError('invalid_format', 'invalid signature domain');
  // The domain is length-prefixed: a signature made for one purpose never verifies for another.
  return encodeFields('securering/sig', domain, bytes);
}

/**
 * Ed25519 signature of `bytes` for one purpose (`domain`, e.g. "securering/call-fingerprint/v1"),
 * so a signature made for one kind of data can never be replayed as another.
 */
export async function signDetached(
  signingPrivateKey: CryptoKey,
  domain: string,
  bytes: Uint8Array,
): Promise<Bytes> {
  return new Uint8Array(await subtle().sign('Ed25519', signingPrivateKey, signedInput(domain, bytes)));
}

/** Checks a signature made by `signDetached` with the same domain; false for any mismatch. */
export async function verifyDetached(
  verifyPublicKey: CryptoKey,
  domain: string,
  bytes: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (signature.length !== SIGNATURE_BYTES) return false;
  return subtle().verify('Ed25519', verifyPublicKey, new Uint8Array(signature), signedInput(domain, bytes));
}
