import { createHmac } from 'node:crypto';
import { TURN_CREDENTIAL_MAX_TTL_SEC, type TIceServer } from '@securering/contract';
import type { TurnConfig } from '../../config';

/**
 * TURN REST API credentials (the scheme of coturn's `use-auth-secret`): the username is
 * `expiry:user` (expiry in Unix seconds; `user` is `callId:memberId` for a call) and the password
 * is base64(HMAC-SHA1(secret, username)). The TURN server recomputes it from the shared secret and
 * refuses it after the expiry, so the browser gets a time-limited credential and never the secret.
 */
export function turnCredential(
  secret: string,
  user: string,
  nowMs: number,
  ttlSec: number,
): { username: string; credential: string; expiresAt: number } {
  const expiresAt = Math.floor(nowMs / 1000) + ttlSec;
  const username = `${expiresAt}:${user}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential, expiresAt };
}

const isTurnUrl = (url: string) => /^turns?:/i.test(url);

/**
 * The ICE servers a member's browser gets for one call: the STUN URLs as they are, and the TURN
 * URLs with a fresh credential bound to the call and the member (`expiry:callId:memberId`) when a
 * secret is configured (without one a TURN server cannot be used, so none is listed). `ttl` is
 * the credential lifetime (at most TURN_CREDENTIAL_MAX_TTL_SEC), 0 when no TURN server is listed.
 */
export function iceServersFor(
  turn: TurnConfig,
  binding: { callId: string; memberId: string },
  nowMs: number,
): { iceServers: TIceServer[]; ttl: number } {
  const stun = turn.urls.filter((url) => !isTurnUrl(url));
  const relays = turn.urls.filter(isTurnUrl);
  const iceServers: TIceServer[] = [];
  if (stun.length) iceServers.push({ urls: stun });
  if (relays.length && turn.secret) {
    const ttl = Math.min(turn.ttlSec, TURN_CREDENTIAL_MAX_TTL_SEC);
    const user = `${binding.callId}:${binding.memberId}`;
    const { username, credential } = turnCredential(turn.secret, user, nowMs, ttl);
    iceServers.push({ urls: relays, username, credential });
    return { iceServers, ttl };
  }
  return { iceServers, ttl: 0 };
}
