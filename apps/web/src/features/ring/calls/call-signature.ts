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
 * missing or malformed signature, an SDP without fingerprint, or any change to what was signed.
 */
export async function verifySdp(
  verifyKey: CryptoKey,
  ctx: CallSignatureContext,
  sdp: string,
  signature: unknown,
): Promise<boolean> {
  if (typeof signature !== 'string' || signature.length === 0 || signature.length > 200) return false;
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
