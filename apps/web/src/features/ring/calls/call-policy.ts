import type { RingRole, TCallEndReason, TRingRoomUser } from '@securering/contract';

/**
 * Pure rules of one-to-one calls in the web app (spec 2 §2, §4, §6, §9): who sees which call
 * button, the call popup's address and size, the call screen's states, its timer and the French
 * text of each ending. No browser API here: everything is unit-tested.
 */

/** Call popup size (spec 2 §9: 900×700). */
export const CALL_POPUP_FEATURES = 'popup=yes,width=900,height=700';
/** How often the room checks whether a call popup it opened was closed (spec 2 §9). */
export const CALL_POPUP_CHECK_MS = 500;
/** How long the in-app notice of an incoming call stays (spec 2 §9). */
export const INCOMING_CALL_NOTICE_MS = 30_000;
/** Vibration of an incoming call: 500 ms on, 200 ms off, three times (spec 2 §9). */
export const CALL_VIBRATION_PATTERN: readonly number[] = [500, 200, 500, 200, 500, 200];
/** A popup's window name: one popup per call. */
export const CALL_POPUP_PREFIX = 'securering-call-';

/** What the room knows of the viewer and the Ring to decide on call buttons. */
export interface CallButtonFacts {
  viewer: { id: string; role: RingRole };
  ring: { capabilities: { voice: boolean; video: boolean }; voiceAdminOnly: boolean };
}

/**
 * The call buttons shown for `user` in "Utilisateurs du Ring" (spec 2 §2, §6): none for oneself or
 * an offline member, none without the Ring's voice capability, none for a plain member under
 * `voiceAdminOnly` (owner and Ring admins keep them); video only when the Ring allows it.
 */
export function callButtonsFor(
  facts: CallButtonFacts,
  user: Pick<TRingRoomUser, 'id' | 'isOnline' | 'isCurrentUser'>,
): { voice: boolean; video: boolean } {
  const none = { voice: false, video: false };
  if (user.isCurrentUser || user.id === facts.viewer.id || !user.isOnline) return none;
  if (!facts.ring.capabilities.voice) return none;
  if (facts.ring.voiceAdminOnly && facts.viewer.role !== 'owner' && facts.viewer.role !== 'admin')
    return none;
  return { voice: true, video: facts.ring.capabilities.video };
}

/** What the call popup's query carries (spec 2 §2 Chat screen: `voice=1…`). */
export interface CallParams {
  ringId: string;
  callId: string;
  peerId: string;
  peerName: string;
  audioOnly: boolean;
  incoming: boolean;
}

/** `/ring?voice=1&peerId=…&peerName=…&audioOnly=1|0&incoming=0|1&callId=…&ringId=…` */
export function callPopupUrl(params: CallParams): string {
  const query = new URLSearchParams({
    voice: '1',
    peerId: params.peerId,
    peerName: params.peerName,
    audioOnly: params.audioOnly ? '1' : '0',
    incoming: params.incoming ? '1' : '0',
    callId: params.callId,
    ringId: params.ringId,
  });
  return `/ring?${query.toString()}`;
}

const ID = /^[A-Za-z0-9-]{1,100}$/;

/**
 * The call a page was opened for, or null when the query is not a call (`voice` is not 1) or is
 * malformed (missing or odd ids): such a page shows the room, never a half-built call.
 */
export function parseCallParams(search: string): CallParams | null {
  const query = new URLSearchParams(search);
  if (query.get('voice') !== '1') return null;
  const ringId = query.get('ringId') ?? '';
  const callId = query.get('callId') ?? '';
  const peerId = query.get('peerId') ?? '';
  if (!ID.test(ringId) || !ID.test(callId) || !ID.test(peerId)) return null;
  return {
    ringId,
    callId,
    peerId,
    peerName: (query.get('peerName') ?? '').slice(0, 80),
    audioOnly: query.get('audioOnly') !== '0',
    incoming: query.get('incoming') === '1',
  };
}

/** True when the query asks for a call screen (even a malformed one, which then shows an error). */
export function isCallQuery(search: string): boolean {
  return new URLSearchParams(search).get('voice') === '1';
}

/** The call screen's `data-call-state`. */
export type CallState = 'outgoing' | 'incoming' | 'connecting' | 'connected' | 'ended';

export type CallStateEvent =
  /** The callee accepted: the caller heard call_accept, or the callee's accept was acknowledged. */
  | { type: 'accepted' }
  /** The RTCPeerConnection's connectionState changed. */
  | { type: 'connection'; state: RTCPeerConnectionState }
  | { type: 'end' };

/**
 * The call screen's state machine (spec 2 §4): outgoing (waiting for an answer) or incoming
 * (ringing), then connecting once accepted, connected only while the peer connection really is
 * (back to connecting while it recovers), and ended — which nothing leaves.
 */
export function nextCallState(state: CallState, event: CallStateEvent): CallState {
  if (state === 'ended') return 'ended';
  switch (event.type) {
    case 'end':
      return 'ended';
    case 'accepted':
      return state === 'outgoing' || state === 'incoming' ? 'connecting' : state;
    case 'connection':
      if (state !== 'connecting' && state !== 'connected') return state;
      if (event.state === 'connected') return 'connected';
      return event.state === 'closed' ? state : 'connecting';
  }
}

/** Why a call ended, as the call screen explains it. */
export type CallEndCause =
  | { kind: 'server'; reason: TCallEndReason; byPeer: boolean }
  | { kind: 'local_hangup' }
  | { kind: 'bad_signature' }
  | { kind: 'certificate_mismatch' }
  | { kind: 'connection_lost' }
  | { kind: 'error'; message: string };

/** The French text of an ending, from this member's side of the call. */
export function endingText(cause: CallEndCause, ctx: { isCaller: boolean; peerName: string }): string {
  const peer = ctx.peerName || 'Votre correspondant';
  switch (cause.kind) {
    case 'local_hangup':
      return 'Appel terminé';
    case 'bad_signature':
      return `Appel interrompu\u202f: la signature de sécurité de ${peer} est invalide. La connexion pourrait être interceptée.`;
    case 'certificate_mismatch':
      return `Appel interrompu\u202f: le certificat de chiffrement reçu n’est pas celui signé par ${peer}. La connexion pourrait être interceptée.`;
    case 'connection_lost':
      return `Connexion perdue avec ${peer}`;
    case 'error':
      return cause.message;
    case 'server':
      switch (cause.reason) {
        case 'cancelled':
          return cause.byPeer ? `${peer} a annulé l’appel` : 'Appel annulé';
        case 'rejected':
          return cause.byPeer ? `${peer} a refusé l’appel` : 'Appel refusé';
        case 'timeout':
          return ctx.isCaller ? `${peer} n’a pas répondu` : 'Appel manqué';
        case 'hangup':
          return cause.byPeer ? `${peer} a raccroché` : 'Appel terminé';
        case 'peer_lost':
          return cause.byPeer ? `Connexion perdue avec ${peer}` : 'Appel terminé';
      }
  }
}

/** Endings after which the call screen closes by itself (spec 2 §4: rejection or cancellation). */
export function closesScreen(cause: CallEndCause): boolean {
  return cause.kind === 'server' && (cause.reason === 'rejected' || cause.reason === 'cancelled');
}

/** The call timer: `mm:ss`, then `h:mm:ss` from one hour. */
export function formatCallDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const mmss = `${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
  return hours > 0 ? `${hours}:${mmss}` : mmss;
}

/** "Appel vocal avec …" / "Appel vidéo avec …": the call's name everywhere it is shown. */
export function callTitle(audioOnly: boolean, peerName: string): string {
  return `${audioOnly ? 'Appel vocal' : 'Appel vidéo'} avec ${peerName}`;
}

/** A member's microphone and camera, as one side of a call tells the other (call data channel). */
export interface MediaState {
  micMuted: boolean;
  cameraOff: boolean;
}

/** The data channel message of a media state. */
export function encodeMediaState(state: MediaState): string {
  return JSON.stringify({ type: 'media', micMuted: state.micMuted, cameraOff: state.cameraOff });
}

/** A media state from the peer, or null for anything else (it comes from the other browser). */
export function parseMediaState(text: string): MediaState | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const d = data as Record<string, unknown>;
  if (d.type !== 'media' || typeof d.micMuted !== 'boolean' || typeof d.cameraOff !== 'boolean') return null;
  return { micMuted: d.micMuted, cameraOff: d.cameraOff };
}

/**
 * What the call screen says of the call's security (issue 28): a spinner only while the call is
 * being set up, the verified badge, a refusal, « Sécurité de l'appel non vérifiée » only when the
 * check actually failed (no verified key of the peer) — nothing while ringing or after a call
 * that ended before any check.
 */
export function securityBadge(
  security: 'pending' | 'verified' | 'refused' | 'unverified',
  state: CallState,
): 'checking' | 'verified' | 'refused' | 'unverified' | null {
  if (security !== 'pending') return security;
  return state === 'connecting' || state === 'connected' ? 'checking' : null;
}
