import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64, toHex } from './encoding';
import {
  exportIdentityKeys,
  exportPublicIdentity,
  fingerprint,
  generateIdentity,
  importIdentityKeys,
  importPublicIdentity,
} from './identity';
import { signDetached, verifyDetached } from './signing';
import { expectCode, flipBase64 } from './test-support';

const subtle = globalThis.crypto.subtle;

describe('identity', () => {
  it('publishes raw 32-byte X25519 and Ed25519 public keys that import back', async () => {
    const identity = await generateIdentity();
    const published = await exportPublicIdentity(identity);
    expect(fromBase64(published.x25519)).toHaveLength(32);
    expect(fromBase64(published.ed25519)).toHaveLength(32);
    const { agreementPublicKey, verifyKey } = await importPublicIdentity(published);
    expect(agreementPublicKey.algorithm.name).toBe('X25519');
    const sig = await signDetached(identity.signing.privateKey, 'test/v1', new Uint8Array([1]));
    expect(await verifyDetached(verifyKey, 'test/v1', new Uint8Array([1]), sig)).toBe(true);
    await expectCode(
      importPublicIdentity({ ...published, x25519: toBase64(new Uint8Array(31)) }),
      'invalid_format',
    );
    await expectCode(importPublicIdentity({ ...published, ed25519: 'not base64!' }), 'invalid_format');
  });

  it('serializes the keys and re-imports them with non-extractable private keys', async () => {
    const identity = await generateIdentity();
    const restored = await importIdentityKeys(await exportIdentityKeys(identity));
    expect(restored.agreement.privateKey.extractable).toBe(false);
    expect(restored.signing.privateKey.extractable).toBe(false);
    expect(await exportPublicIdentity(restored)).toEqual(await exportPublicIdentity(identity));
    // The restored private keys are the same keys: same X25519 secret, signatures verify.
    const peer = await generateIdentity();
    const secret = (privateKey: CryptoKey, publicKey: CryptoKey) =>
      subtle.deriveBits({ name: 'X25519', public: publicKey }, privateKey, 256);
    expect(new Uint8Array(await secret(restored.agreement.privateKey, peer.agreement.publicKey))).toEqual(
      new Uint8Array(await secret(peer.agreement.privateKey, identity.agreement.publicKey)),
    );
    const sig = await signDetached(restored.signing.privateKey, 'test/v1', new Uint8Array([2]));
    expect(await verifyDetached(identity.signing.publicKey, 'test/v1', new Uint8Array([2]), sig)).toBe(true);
    await expectCode(exportIdentityKeys(restored), 'invalid_format');
  });

  it('fingerprints as six groups of five digits, stable and sensitive to each key', async () => {
    const published = await exportPublicIdentity(await generateIdentity());
    const value = await fingerprint(published);
    expect(value).toMatch(/^\d{5}( \d{5}){5}$/);
    expect(await fingerprint({ ...published })).toBe(value);
    expect(await fingerprint({ ...published, x25519: flipBase64(published.x25519, 5) })).not.toBe(value);
    expect(await fingerprint({ ...published, ed25519: flipBase64(published.ed25519, 31) })).not.toBe(value);
    expect(await fingerprint(await exportPublicIdentity(await generateIdentity()))).not.toBe(value);
  });

  it('fingerprint is a known answer for fixed keys (format frozen across versions)', async () => {
    const published = {
      x25519: toBase64(new Uint8Array(32).fill(1)),
      ed25519: toBase64(new Uint8Array(32).fill(2)),
    };
    const hash = new Uint8Array(
      await subtle.digest(
        'SHA-256',
        new Uint8Array([
          ...[0, 0, 0, 25, ...new TextEncoder().encode('securering/fingerprint/v1')],
          ...[0, 0, 0, 32, ...new Uint8Array(32).fill(1)],
          ...[0, 0, 0, 32, ...new Uint8Array(32).fill(2)],
        ]),
      ),
    );
    const groups = [0, 1, 2, 3, 4, 5].map((g) =>
      String(BigInt('0x' + toHex(hash.subarray(g * 5, g * 5 + 5))) % 100000n).padStart(5, '0'),
    );
    expect(await fingerprint(published)).toBe(groups.join(' '));
  });
});
