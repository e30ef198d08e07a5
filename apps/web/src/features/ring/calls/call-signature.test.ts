import { generateIdentity } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import {
  CALL_DTLS_DOMAIN,
  callSignaturePayload,
  certificateMatches,
  checkRemoteCertificate,
  corruptSignature,
  type DtlsPeer,
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

describe('fingerprint lines the signature does not cover (review L2)', () => {
  it('refuses an SDP with an extra fingerprint line the parser would not read', async () => {
    const alice = await generateIdentity();
    const sdp = sdpWith(FP_A);
    const signature = await signSdp(alice.signing.privateKey, ctx, sdp);
    const key = alice.signing.publicKey;
    expect(await verifySdp(key, ctx, sdp, signature)).toBe(true);
    for (const extra of [
      `a=fingerprint:sha-256 ${FP_B.replace(/:/g, '')}`,
      `a=fingerprint:sha-256 ${FP_B}:ZZ`,
      `A=FINGERPRINT:sha-256 ${FP_B}`,
      `a=fingerprint:sha-256`,
      `a=fingerprint:md5 ${FP_B.slice(0, 47)}`,
    ])
      expect(
        await verifySdp(key, ctx, sdp.replace('a=setup:actpass', `${extra}\r\na=setup:actpass`), signature),
      ).toBe(false);
  });
});

/** sha-256("abc") (FIPS 180-2 example): the fingerprint of a "certificate" whose bytes are "abc". */
const ABC_SHA256 =
  'BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD';
const abc = () => new TextEncoder().encode('abc').buffer as ArrayBuffer;

describe('the certificate presented after connecting (review L2)', () => {
  it('matches the leaf certificate against the signed fingerprints', async () => {
    expect(await certificateMatches([abc()], [`sha-256 ${ABC_SHA256}`])).toBe(true);
    expect(await certificateMatches([abc()], [`sha-256 ${FP_A}`])).toBe(false);
    expect(await certificateMatches([], [`sha-256 ${ABC_SHA256}`])).toBe(false);
    // The same digest under another algorithm name is not a match.
    expect(await certificateMatches([abc()], [`sha-384 ${ABC_SHA256}`])).toBe(false);
  });

  const peer = (
    transport: Partial<RTCDtlsTransport> | null,
    stats: Array<Record<string, unknown>> = [],
  ): DtlsPeer => ({
    getReceivers: () => [{ transport: transport as RTCDtlsTransport | null }],
    getStats: () =>
      Promise.resolve(new Map(stats.map((s) => [s.id as string, s])) as unknown as RTCStatsReport),
  });

  it('reads RTCDtlsTransport.getRemoteCertificates of the connected transports', async () => {
    const connected = (bytes: ArrayBuffer) => ({
      state: 'connected' as const,
      getRemoteCertificates: () => [bytes],
    });
    expect(await checkRemoteCertificate(peer(connected(abc())), [`sha-256 ${ABC_SHA256}`])).toBe('match');
    expect(await checkRemoteCertificate(peer(connected(abc())), [`sha-256 ${FP_A}`])).toBe('mismatch');
  });

  it('falls back to the remote certificate of getStats, and says when nothing is readable', async () => {
    const stats = (fingerprint: string) => [
      { id: 'T1', type: 'transport', remoteCertificateId: 'C2' },
      {
        id: 'C2',
        type: 'certificate',
        fingerprintAlgorithm: 'sha-256',
        fingerprint: fingerprint.toLowerCase(),
      },
    ];
    const noApi = { state: 'connected' as const };
    expect(await checkRemoteCertificate(peer(noApi, stats(FP_A)), [`sha-256 ${FP_A}`])).toBe('match');
    expect(await checkRemoteCertificate(peer(noApi, stats(FP_B)), [`sha-256 ${FP_A}`])).toBe('mismatch');
    expect(await checkRemoteCertificate(peer(null), [`sha-256 ${FP_A}`])).toBe('unavailable');
  });
});
