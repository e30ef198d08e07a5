/**
 * Pure parts of the "perfect negotiation" pattern (W3C WebRTC 1.0 §10.7) used by the call
 * connection: both peers may offer at any time (tracks added, ICE restart); when two offers cross,
 * the impolite peer (the caller) ignores the other's offer and the polite one (the callee) rolls
 * its own back and answers. Plus the shape of what the peers send each other through the server.
 */

/** What decides, when a remote description arrives, whether it is applied or ignored. */
export interface DescriptionFacts {
  type: RTCSdpType;
  polite: boolean;
  /** This side is between createOffer and sending it (setLocalDescription in progress). */
  makingOffer: boolean;
  signalingState: RTCSignalingState;
  /** This side is applying a remote answer (it then goes back to stable). */
  settingRemoteAnswerPending: boolean;
}

/**
 * `ignore`: the impolite peer drops a colliding offer (its own offer wins); `apply`: set it as the
 * remote description (the polite peer rolls its own offer back implicitly), then answer an offer.
 */
export function decideOnDescription(facts: DescriptionFacts): 'apply' | 'ignore' {
  const readyForOffer =
    !facts.makingOffer && (facts.signalingState === 'stable' || facts.settingRemoteAnswerPending);
  const collision = facts.type === 'offer' && !readyForOffer;
  return collision && !facts.polite ? 'ignore' : 'apply';
}

/**
 * Whether this side may send an offer when the browser asks for one (`negotiationneeded`). Both
 * sides add their tracks as soon as the call is accepted, so both would offer at once on every
 * call; the callee (polite) leaves the first offer to the caller and only offers once a first
 * offer of the peer has been answered (renegotiation, ICE restart). No glare on the way in.
 */
export function mayOfferNow(facts: { polite: boolean; answeredPeerOffer: boolean }): boolean {
  return !facts.polite || facts.answeredPeerOffer;
}

/** How long a connection may stay `disconnected` before the impolite peer restarts ICE. */
export const ICE_RESTART_AFTER_DISCONNECTED_MS = 2500;
/** The polite peer restarts ICE too if nothing recovered after this long (the other may not notice). */
export const POLITE_ICE_RESTART_AFTER_MS = 8000;
/** A connection that does not come back within this time ends the call. */
export const CONNECTION_LOST_AFTER_MS = 30_000;

/** At most one ICE restart from this side per this period (the renegotiation needs time). */
export const MIN_ICE_RESTART_INTERVAL_MS = 5000;

/**
 * Whether this side should call `restartIce()` now: at once on `failed` or after a few seconds of
 * `disconnected` for the impolite peer; the polite one waits longer so the two rarely both restart;
 * never twice within {@link MIN_ICE_RESTART_INTERVAL_MS}.
 */
export function shouldRestartIce(facts: {
  polite: boolean;
  connectionState: RTCPeerConnectionState;
  /** Since when the connection is not connected (ms), or null when it is (or never was). */
  troubleForMs: number | null;
  /** Since this side's last restart (ms), or null when it never restarted. */
  sinceLastRestartMs: number | null;
}): boolean {
  if (facts.troubleForMs === null) return false;
  if (facts.connectionState !== 'failed' && facts.connectionState !== 'disconnected') return false;
  if (facts.sinceLastRestartMs !== null && facts.sinceLastRestartMs < MIN_ICE_RESTART_INTERVAL_MS)
    return false;
  if (facts.polite) return facts.troubleForMs >= POLITE_ICE_RESTART_AFTER_MS;
  return facts.connectionState === 'failed' || facts.troubleForMs >= ICE_RESTART_AFTER_DISCONNECTED_MS;
}

/** A description with the signature of its DTLS fingerprints (call_offer / call_answer `data`). */
export interface SignedDescription {
  description: { type: 'offer' | 'answer'; sdp: string };
  signature: string;
}

/** One ICE candidate (ice_candidate `data`). */
export interface CandidateSignal {
  candidate: RTCIceCandidateInit;
}

/**
 * Reads a relayed call_offer / call_answer / ice_candidate `data` (it comes from the other browser
 * through the server: anything is possible). Null when it is neither shape; a description without
 * signature keeps an empty signature, which the verification then refuses.
 */
export function parseSignal(data: unknown): SignedDescription | CandidateSignal | null {
  if (typeof data !== 'object' || data === null) return null;
  const d = data as Record<string, unknown>;
  const description = d.description as Record<string, unknown> | undefined;
  if (description && typeof description === 'object') {
    if (
      (description.type !== 'offer' && description.type !== 'answer') ||
      typeof description.sdp !== 'string'
    )
      return null;
    return {
      description: { type: description.type, sdp: description.sdp },
      signature: typeof d.signature === 'string' ? d.signature : '',
    };
  }
  const candidate = d.candidate as Record<string, unknown> | undefined;
  if (candidate && typeof candidate === 'object' && typeof candidate.candidate === 'string') {
    return {
      candidate: {
        candidate: candidate.candidate,
        sdpMid: typeof candidate.sdpMid === 'string' ? candidate.sdpMid : null,
        sdpMLineIndex: typeof candidate.sdpMLineIndex === 'number' ? candidate.sdpMLineIndex : null,
        ...(typeof candidate.usernameFragment === 'string'
          ? { usernameFragment: candidate.usernameFragment }
          : {}),
      },
    };
  }
  return null;
}

/** The ICE username fragments an SDP declares (`a=ice-ufrag:`). */
export function iceUfragsOf(sdp: string): Set<string> {
  const found = new Set<string>();
  for (const match of sdp.matchAll(/^a=ice-ufrag:(\S+)\s*$/gm)) found.add(match[1]!);
  return found;
}

/**
 * Whether a remote candidate can be added now: there is a remote description, and the candidate
 * belongs to its ICE generation (a candidate of an ICE restart can arrive before the new offer).
 */
export function candidateFits(candidate: RTCIceCandidateInit, remoteSdp: string | null): boolean {
  if (remoteSdp === null) return false;
  if (!candidate.usernameFragment) return true;
  return iceUfragsOf(remoteSdp).has(candidate.usernameFragment);
}
