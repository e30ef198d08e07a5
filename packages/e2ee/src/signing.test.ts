import { describe, expect, it } from 'vitest';
import { generateIdentity } from './identity';
import { signDetached, verifyDetached } from './signing';
import { expectCode, flipBit } from './test-support';

describe('detached signatures', () => {
  it('verify only with the same key, domain and bytes', async () => {
    const alice = await generateIdentity();
    const mallory = await generateIdentity();
    const bytes = new TextEncoder().encode('sha-256 AB:CD:EF');
    const domain = 'securering/call-fingerprint/v1';
    const sig = await signDetached(alice.signing.privateKey, domain, bytes);
    expect(sig).toHaveLength(64);
    expect(await verifyDetached(alice.signing.publicKey, domain, bytes, sig)).toBe(true);
    expect(await verifyDetached(mallory.signing.publicKey, domain, bytes, sig)).toBe(false);
    expect(await verifyDetached(alice.signing.publicKey, 'securering/other/v1', bytes, sig)).toBe(false);
    expect(await verifyDetached(alice.signing.publicKey, domain, flipBit(bytes, 3), sig)).toBe(false);
    expect(await verifyDetached(alice.signing.publicKey, domain, bytes, flipBit(sig, 10))).toBe(false);
    expect(await verifyDetached(alice.signing.publicKey, domain, bytes, sig.subarray(0, 63))).toBe(false);
    await expectCode(signDetached(alice.signing.privateKey, 'has space', bytes), 'invalid_format');
  });
});
