import { generateIdentity } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import {
  CALL_DTLS_DOMAIN,
  callSignaturePayload,
  corruptSignature,
  extractFingerprints,
  signSdp,
  verifySdp,
  type CallSignatureContext,
} from './call-signature';

const FP_A =
  '7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08';
const FP_B =
  'A1:B2:C3:D4:E5:F6:07:18:29:3A:4B:5C:6D:7E:8F:90:A1:B2:C3:D4:E5:F6:07:18:29:3A:4B:5C:6D:7E:8F:90';

/** An SDP as Chromium writes it (trimmed), with the fingerprint on each media section. */
const sdpWith = (fingerprint: string) =>
  [
    'v=0',
    'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
    's=-',
    't=0 0',
    'a=group:BUNDLE 0 1',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111',
    'c=IN IP4 0.0.0.0',
    'a=ice-ufrag:Zx9q',
    'a=ice-pwd:9pKBwK2Lq7G0JrX4mC1Zb8uS',
    `a=fingerprint:sha-256 ${fingerprint}`,
    'a=setup:actpass',
    'a=mid:0',
    'm=video 9 UDP/TLS/RTP/SAVPF 96',
    'c=IN IP4 0.0.0.0',
    'a=ice-ufrag:Zx9q',
    `a=fingerprint:sha-256 ${fingerprint}`,
    'a=setup:actpass',
    'a=mid:1',
    '',
  ].join('\r\n');

const ctx: CallSignatureContext = {
  ringId: 'ring-1',
  callId: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
  fromMemberId: 'alice',
  toMemberId: 'bob',
};

describe('extractFingerprints', () => {
  it('finds the DTLS fingerprints of every section once, normalised and sorted', () => {
    expect(extractFingerprints(sdpWith(FP_A))).toEqual([`sha-256 ${FP_A}`]);
    const mixed = sdpWith(FP_A.toLowerCase()).replace(
      `a=fingerprint:sha-256 ${FP_A.toLowerCase()}\r\na=setup:actpass\r\na=mid:1`,
      `a=fingerprint:SHA-256 ${FP_B}\r\na=setup:actpass\r\na=mid:1`,
    );
    expect(extractFingerprints(mixed)).toEqual([`sha-256 ${FP_A}`, `sha-256 ${FP_B}`]);
  });

  it('finds none in an SDP without (well-formed) fingerprint', () => {
    expect(extractFingerprints('v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n')).toEqual([]);
    expect(extractFingerprints('a=fingerprint:sha-256 not-hex\r\na=fingerprint:\r\n')).toEqual([]);
  });
});

describe('signed call fingerprints', () => {
  it('binds purpose, Ring, call, both members and the fingerprints', () => {
    const payload = new TextDecoder().decode(callSignaturePayload(ctx, [`sha-256 ${FP_A}`]));
    expect(JSON.parse(payload)).toEqual([
      'securering-call-dtls',
      1,
      'ring-1',
      ctx.callId,
      'alice',
      'bob',
      [`sha-256 ${FP_A}`],
    ]);
    expect(CALL_DTLS_DOMAIN).toBe('securering/call-dtls/v1');
  });

  it('verifies with the signer’s key, and refuses any change', async () => {
    const alice = await generateIdentity();
    const mallory = await generateIdentity();
    const sdp = sdpWith(FP_A);
    const signature = await signSdp(alice.signing.privateKey, ctx, sdp);
    const verifyKey = alice.signing.publicKey;

    expect(await verifySdp(verifyKey, ctx, sdp, signature)).toBe(true);
    // Other ICE details do not matter; the fingerprint does.
    expect(
      await verifySdp(verifyKey, ctx, sdp.replace('a=ice-ufrag:Zx9q', 'a=ice-ufrag:Other'), signature),
    ).toBe(true);

    // A server in the middle puts its own certificate's fingerprint in the SDP.
    expect(await verifySdp(verifyKey, ctx, sdpWith(FP_B), signature)).toBe(false);
    // …or adds one, or removes them all.
    expect(await verifySdp(verifyKey, ctx, `${sdp}a=fingerprint:sha-256 ${FP_B}\r\n`, signature)).toBe(false);
    expect(await verifySdp(verifyKey, ctx, sdp.replace(/a=fingerprint:[^\r]*\r\n/g, ''), signature)).toBe(
      false,
    );
    // Replayed in another call, another Ring, or the other direction.
    expect(await verifySdp(verifyKey, { ...ctx, callId: 'another' }, sdp, signature)).toBe(false);
    expect(await verifySdp(verifyKey, { ...ctx, ringId: 'ring-2' }, sdp, signature)).toBe(false);
    expect(
      await verifySdp(verifyKey, { ...ctx, fromMemberId: 'bob', toMemberId: 'alice' }, sdp, signature),
    ).toBe(false);
    // Signed by someone else, corrupted, missing or malformed.
    expect(await verifySdp(verifyKey, ctx, sdp, await signSdp(mallory.signing.privateKey, ctx, sdp))).toBe(
      false,
    );
    expect(await verifySdp(verifyKey, ctx, sdp, corruptSignature(signature))).toBe(false);
    expect(await verifySdp(verifyKey, ctx, sdp, '')).toBe(false);
    expect(await verifySdp(verifyKey, ctx, sdp, undefined)).toBe(false);
    expect(await verifySdp(verifyKey, ctx, sdp, '%%%not base64%%%')).toBe(false);
    expect(await verifySdp(verifyKey, ctx, sdp, signature.slice(0, 20))).toBe(false);
  });

  it('refuses to sign an SDP without fingerprint', async () => {
    const alice = await generateIdentity();
    await expect(signSdp(alice.signing.privateKey, ctx, 'v=0\r\n')).rejects.toThrow(
      'SDP sans empreinte DTLS',
    );
  });
});
