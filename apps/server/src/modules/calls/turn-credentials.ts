import { createHmac } from 'node:crypto';
import type { TIceServer } from '@securering/contract';
import type { TurnConfig } from '../../config';

/**
 * TURN REST API credentials (the scheme of coturn's `use-auth-secret`): the username is
 * `expiry:memberId` (expiry in Unix seconds) and the password is base64(HMAC-SHA1(secret,
 * username)). The TURN server recomputes it from the shared secret and refuses it after the expiry,
 * so the browser gets a time-limited credential and never the secret.
 */
export function turnCredential(
  secret: string,
  memberId: string,
  nowMs: number,
  ttlSec: number,
): { username: string; credential: string; expiresAt: number } {
  const expiresAt = Math.floor(nowMs / 1000) + ttlSec;
  const username = `${expiresAt}:${memberId}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential, expiresAt };
}

const isTurnUrl = (url: string) => /^turns?:/i.test(url);

/**
 * The ICE servers a member's browser gets: the STUN URLs as they are, and the TURN URLs with a
 * fresh credential when a secret is configured (without one a TURN server cannot be used, so none
 * is listed). `ttl` is the credential lifetime, 0 when no TURN server is listed.
 */
export function iceServersFor(
  turn: TurnConfig,
  memberId: string,
  nowMs: number,
): { iceServers: TIceServer[]; ttl: number } {
  const stun = turn.urls.filter((url) => !isTurnUrl(url));
  const relays = turn.urls.filter(isTurnUrl);
  const iceServers: TIceServer[] = [];
  if (stun.length) iceServers.push({ urls: stun });
  if (relays.length && turn.secret) {
    const { username, credential } = turnCredential(turn.secret, memberId, nowMs, turn.ttlSec);
    iceServers.push({ urls: relays, username, credential });
    return { iceServers, ttl: turn.ttlSec };
  }
  return { iceServers, ttl: 0 };
}
