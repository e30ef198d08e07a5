import { MEMBER_ACCESS_MESSAGES } from '@securering/contract';

/**
 * Why the Ring login form is showing after a room closed by itself (issue 28), kept in memory only:
 * the member's access was suspended (`access_suspended` on the room's socket) or its session
 * expired (a 401 on a Ring call). The form says so and fills in the email it knew.
 */
export interface RingLoginNotice {
  kind: 'suspended' | 'expired' | 'logged_out';
  email: string | null;
}

export const RING_LOGIN_NOTICE_TEXT: Record<RingLoginNotice['kind'], string> = {
  suspended: MEMBER_ACCESS_MESSAGES.accessSuspended,
  expired: 'Session expirée\u202f: reconnectez-vous',
  logged_out: 'Vous êtes déconnecté du Ring.',
};

let current: RingLoginNotice | null = null;

/**
 * Records why the room closed. The first reason stands (a logout or a suspension is not replaced
 * by the 401s that follow it), except that a suspension always says so.
 */
export function setRingLoginNotice(notice: RingLoginNotice): void {
  if (current && notice.kind !== 'suspended') return;
  current = notice;
}

/** The notice for the login form, if any (it stays until a login succeeds or the form is left). */
export function peekRingLoginNotice(): RingLoginNotice | null {
  return current;
}

export function clearRingLoginNotice(): void {
  current = null;
}
