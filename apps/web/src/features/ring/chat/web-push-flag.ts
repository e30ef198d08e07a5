import { useEffect } from 'react';

/**
 * Whether the member opted in to Web Push on this device (issue 29): kept in localStorage so the
 * room, when it opens, loads the push module (web-push.ts) only for members who asked for it.
 */
export const FLAG_PREFIX = 'secureRing.webPush.';

export function isWebPushWanted(memberId: string): boolean {
  try {
    return localStorage.getItem(FLAG_PREFIX + memberId) === '1';
  } catch {
    return false;
  }
}

/**
 * In the room: for a member who opted in on this device, loads the push module and renews the
 * subscription and the Ring's name for the worker (web-push.ts syncWebPush). Nothing otherwise.
 */
export function useWebPushSync(memberId: string, ringId: string, ringName: string): void {
  useEffect(() => {
    if (!isWebPushWanted(memberId)) return;
    void import('./web-push')
      .then((m) => m.syncWebPush({ id: memberId }, { id: ringId, name: ringName }))
      .catch(() => undefined);
  }, [memberId, ringId, ringName]);
}
