import { fromBase64, signDetached, toBase64, utf8Encode, verifyDetached } from '@securering/e2ee';

/**
 * Media keys bound to people (issue 13). WebRTC encrypts media with DTLS-SRTP; the DTLS
 * certificate of each browser is named in its SDP by `a=fingerprint:` lines, and the browser
 * refuses a DTLS peer whose certificate does not match the remote SDP's fingerprint. The SDP
 * travels through the server, so each side signs its fingerprints — with the call, the Ring and
 * both members — with its Ed25519 identity key, and the other side checks that signature with the
 * key it trusts for that member before applying the SDP. A server that swapped the fingerprints
 * (to place itself in the middle) cannot sign for a member.
 */

/** Signature domain of call fingerprints (never valid for another kind of data). */
export const CALL_DTLS_DOMAIN = 'securering/call-dtls/v1';

/** Who signs for which call: the same facts on both sides, in the same order. */
export interface CallSignatureContext {
  ringId: string;
  callId: string;
  /** The member whose SDP this is (the signer). */
  fromMemberId: string;
  /** The member it is sent to. */
  toMemberId: string;
}

const FINGERPRINT_LINE = /^a=fingerprint:(\S+)\s+([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2})+)\s*$/;
/** Fingerprint algorithms this browser can recompute after connecting (WebCrypto digests). */
const DIGESTS: Record<string, string> = {
  'sha-1': 'SHA-1',
  'sha-256': 'SHA-256',
  'sha-384': 'SHA-384',
  'sha-512': 'SHA-512',
};

/**
 * The DTLS fingerprints an SDP declares (session or media level), normalised as
 * `sha-256 AB:CD:…` (algorithm lower case, hex upper case), without duplicates, sorted. Lines that
 * are not well-formed fingerprints are not fingerprints: an SDP with only those yields none.
 */
export function extractFingerprints(sdp: string): string[] {
  const found = new Set<string>();
  for (const line of sdp.split(/\r?\n/)) {
    const match = FINGERPRINT_LINE.exec(line.trim());
    if (match) found.add(`${match[1]!.toLowerCase()} ${match[2]!.toUpperCase()}`);
  }
  return [...found].sort();
}

/**
 * Review L2: every line that names a fingerprint (`a=fingerprint…`, any case) must be one the
 * signature covers — well formed, with an algorithm this browser can recompute. A line the parser
 * above would skip but the browser might read is a fingerprint nobody signed.
 */
export function allFingerprintLinesCovered(sdp: string): boolean {
  return sdp.split(/\r?\n/).every((raw) => {
    const line = raw.trim();
    if (!line.toLowerCase().startsWith('a=fingerprint')) return true;
    const match = FINGERPRINT_LINE.exec(line);
    return Boolean(match && DIGESTS[match[1]!.toLowerCase()]);
  });
}

/**
 * Review L2: after connecting, whether the certificate the peer actually presented over DTLS (its
 * DER bytes, from RTCDtlsTransport.getRemoteCertificates) has one of the fingerprints its signed
 * SDP declared. The leaf certificate comes first.
 */
export async function certificateMatches(
  certificates: ArrayBuffer[],
  signed: readonly string[],
): Promise<boolean> {
  const leaf = certificates[0];
  if (!leaf) return false;
  for (const algorithm of new Set(signed.map((f) => f.split(' ')[0]!))) {
    const digest = DIGESTS[algorithm];
    if (!digest) continue;
    const bytes = new Uint8Array(await crypto.subtle.digest(digest, leaf));
    const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
    if (signed.includes(`${algorithm} ${hex}`)) return true;
  }
  return false;
}

/** The bytes signed for an SDP: purpose, version, Ring, call, signer, receiver, fingerprints. */
export function callSignaturePayload(ctx: CallSignatureContext, fingerprints: readonly string[]): Uint8Array {
  return utf8Encode(
    JSON.stringify([
      'securering-call-dtls',
      1,
      ctx.ringId,
      ctx.callId,
      ctx.fromMemberId,
      ctx.toMemberId,
      [...fingerprints].sort(),
    ]),
  );
}

/** Signs the fingerprints of this side's SDP (base64). Throws when the SDP declares none. */
export async function signSdp(
  signingKey: CryptoKey,
  ctx: CallSignatureContext,
  sdp: string,
): Promise<string> {
  const fingerprints = extractFingerprints(sdp);
  if (fingerprints.length === 0) throw new Error('SDP sans empreinte DTLS');
  return toBase64(await signDetached(signingKey, CALL_DTLS_DOMAIN, callSignaturePayload(ctx, fingerprints)));
}

/**
 * Checks the signature sent with the peer's SDP against the peer's identity key. False for a
 * missing or malformed signature, an SDP without fingerprint or with a fingerprint line the
 * signature does not cover, or any change to what was signed.
 */
export async function verifySdp(
  verifyKey: CryptoKey,
  ctx: CallSignatureContext,
  sdp: string,
  signature: unknown,
): Promise<boolean> {
  if (typeof signature !== 'string' || signature.length === 0 || signature.length > 200) return false;
  if (!allFingerprintLinesCovered(sdp)) return false;
  const fingerprints = extractFingerprints(sdp);
  if (fingerprints.length === 0) return false;
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(signature);
  } catch {
    return false;
  }
  try {
    return await verifyDetached(verifyKey, CALL_DTLS_DOMAIN, callSignaturePayload(ctx, fingerprints), bytes);
  } catch {
    return false;
  }
}

/** A copy of a base64 signature with one bit changed (the test knob that proves the check). */
export function corruptSignature(signature: string): string {
  const bytes = fromBase64(signature);
  if (bytes.length > 0) bytes[0] = bytes[0]! ^ 0x01;
  return toBase64(bytes);
}

/** The parts of RTCPeerConnection the certificate check reads. */
export interface DtlsPeer {
  getReceivers(): Array<{ transport: RTCDtlsTransport | null }>;
  getStats(): Promise<RTCStatsReport>;
}

/**
 * Review L2: the certificates the peer presented over each connected DTLS transport, compared
 * with the fingerprints of its signed SDP. Reads RTCDtlsTransport.getRemoteCertificates (Chromium)
 * and, where a browser lacks it, the remote `certificate` entries of getStats; `unavailable` when
 * neither says anything.
 */
export async function checkRemoteCertificate(
  pc: DtlsPeer,
  signed: readonly string[],
): Promise<'match' | 'mismatch' | 'unavailable'> {
  const transports = new Set(
    pc
      .getReceivers()
      .map((r) => r.transport)
      .filter((t): t is RTCDtlsTransport => t?.state === 'connected'),
  );
  let checked = false;
  for (const transport of transports) {
    if (typeof transport.getRemoteCertificates !== 'function') break;
    if (!(await certificateMatches(transport.getRemoteCertificates(), signed))) return 'mismatch';
    checked = true;
  }
  if (checked) return 'match';
  const report = await pc.getStats();
  const seen: string[] = [];
  report.forEach((stat: { type: string; remoteCertificateId?: string }) => {
    const cert =
      stat.type === 'transport' && stat.remoteCertificateId && report.get(stat.remoteCertificateId);
    if (cert)
      seen.push(
        `${String(cert.fingerprintAlgorithm).toLowerCase()} ${String(cert.fingerprint).toUpperCase()}`,
      );
  });
  if (seen.length === 0) return 'unavailable';
  return seen.every((f) => signed.includes(f)) ? 'match' : 'mismatch';
}
