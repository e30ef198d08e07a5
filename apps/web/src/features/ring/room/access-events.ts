import type { TRingInfo } from '@securering/contract';
import { useEffect } from 'react';
import { SESSION_EXPIRED_EVENT, clearSession } from '@/lib/api-client';
import { setRingLoginNotice } from '@/lib/auth/ring-login-notice';
import { recordMembershipNotice } from '../chat/membership-notices';
import { useRingEvent } from '../realtime/ring-socket';

/**
 * How a room learns that access ended (issue 28): its own suspension (`access_suspended`, sent just
 * before the server closes its sockets) closes the room onto the login form saying why; an expired
 * session (any Ring call answered 401) does the same with « Session expirée ». Both keep the email
 * for the form. Other members' suspensions go to the timeline.
 */
export function useAccessEvents(info: TRingInfo): void {
  const email = info.user.email ?? null;
  useRingEvent('access_suspended', () => {
    setRingLoginNotice({ kind: 'suspended', email });
    clearSession('ring');
    window.dispatchEvent(new CustomEvent(SESSION_EXPIRED_EVENT, { detail: 'ring' }));
  });
  useRingEvent('member_suspended', (event) => recordMembershipNotice(event));
  useEffect(() => {
    const onExpired = (event: Event) => {
      if ((event as CustomEvent).detail === 'ring') setRingLoginNotice({ kind: 'expired', email });
    };
    window.addEventListener(SESSION_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(SESSION_EXPIRED_EVENT, onExpired);
  }, [email]);
}
