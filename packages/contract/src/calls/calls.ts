import { z } from 'zod';
import { successOf } from '../common';

/**
 * One-to-one voice and video calls (spec 2 §2 Call screen, §4 call states, §6 rules, §9 constants).
 * The socket events are in events.ts; this file holds the HTTP call and what both apps share.
 */

/** A call not answered within this time is cancelled for both sides (spec 2 §9 in-app notice 30 s). */
export const CALL_RING_TIMEOUT_MS = 30_000;

/**
 * Longest lifetime of TURN credentials handed to a browser, in seconds (TURN REST API scheme). The
 * TURN server checks them when a relay is allocated: a call already relayed goes on after expiry.
 */
export const TURN_CREDENTIAL_MAX_TTL_SEC = 600;

export const CALL_TYPES = ['voice', 'video'] as const;
export type TCallType = (typeof CALL_TYPES)[number];

/** Why a call ended, as the call events tell both members. */
export const CALL_END_REASONS = ['cancelled', 'rejected', 'timeout', 'hangup', 'peer_lost'] as const;
export type TCallEndReason = (typeof CALL_END_REASONS)[number];

export const CALL_MESSAGES = {
  selfCall: 'Vous ne pouvez pas vous appeler vous-même.',
  voiceDisabled: 'Les appels ne sont pas activés pour ce Ring.',
  videoDisabled: 'Les appels vidéo ne sont pas disponibles pour ce Ring.',
  adminOnly: 'Seuls le propriétaire et les administrateurs du Ring peuvent lancer un appel.',
  calleeNotFound: 'Ce membre ne fait pas partie du Ring.',
  calleeOffline: 'Ce membre n’est pas en ligne.',
  calleeBusy: (username: string) => `${username} est déjà en appel.`,
  callerBusy: 'Vous êtes déjà en appel.',
  callIdTaken: 'Cet identifiant d’appel est déjà utilisé.',
  callNotFound: 'Appel introuvable.',
  callOver: 'Cet appel est terminé.',
  notAnswered: 'L’appel n’a pas encore été accepté.',
  notCallee: 'Seul le membre appelé peut accepter cet appel.',
  wrongPeer: 'Ce membre ne participe pas à cet appel.',
  callIdRequired: 'Indiquez l’appel pour lequel demander les serveurs relais.',
} as const;

/** The HTTP calls of this feature. */
export const CALL_API_PATHS = {
  callConfig: '/api/rings/call-config.php',
} as const;

/** One ICE server as RTCPeerConnection takes it; TURN entries carry time-limited credentials. */
export const ZIceServer = z.object({
  urls: z.array(z.string()),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type TIceServer = z.infer<typeof ZIceServer>;

/** The query of GET /api/rings/call-config.php: the accepted call the relay is for. */
export const ZCallConfigQuery = z.object({
  callId: z.string({ error: CALL_MESSAGES.callIdRequired }).min(1, CALL_MESSAGES.callIdRequired).max(100),
});
export type TCallConfigQuery = z.infer<typeof ZCallConfigQuery>;

/**
 * GET /api/rings/call-config.php?callId=… — Ring session required, for one of the two members of
 * an accepted (or connected) call that the Ring and the plan still allow. The STUN and TURN servers
 * of this deployment; TURN credentials are valid `ttl` seconds, at most TURN_CREDENTIAL_MAX_TTL_SEC
 * (username `expiry:callId:memberId`, credential base64(HMAC-SHA1(secret, username))). Empty when
 * nothing is configured.
 */
export const ZCallConfigResponse = successOf({
  iceServers: z.array(ZIceServer),
  ttl: z.number().int().nonnegative(),
});
export type TCallConfigResponse = z.infer<typeof ZCallConfigResponse>;
