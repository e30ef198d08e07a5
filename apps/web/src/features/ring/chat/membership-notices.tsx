import type { TMemberSuspended } from '@securering/contract';
import { lazy, Suspense, useSyncExternalStore } from 'react';

/**
 * Members the owner deactivated or reactivated while this room was open (issue 28), for the room's
 * timeline: « Marc a été retiré du Ring ». In memory for the page's life; the server's word (a
 * notice, not a trust decision: who gets keys is what the signed membership log says).
 */
export interface MembershipNotice {
  key: string;
  at: string;
  username: string;
  back: boolean;
}

const notices = new Map<string, MembershipNotice[]>();
const listeners = new Set<() => void>();
const EMPTY: MembershipNotice[] = [];

/** Records a `member_suspended` event of a Ring (one notice per event). */
export function recordMembershipNotice(event: TMemberSuspended): void {
  const list = notices.get(event.ringId) ?? [];
  const key = `${event.userId}:${event.at}:${event.back ? 'back' : 'off'}`;
  if (list.some((n) => n.key === key)) return;
  notices.set(event.ringId, [
    ...list,
    { key, at: event.at, username: event.username, back: event.back === true },
  ]);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The membership notices of one Ring, in the order they arrived. */
export function useMembershipNotices(ringId: string): readonly MembershipNotice[] {
  return useSyncExternalStore(
    subscribe,
    () => notices.get(ringId) ?? EMPTY,
    () => EMPTY,
  );
}

// Rare (a member deactivated while the room is open): its line loads when first needed.
const Line = lazy(() => import('./membership-notice-line').then((m) => ({ default: m.MembershipNoticeLine })));

/** The timeline line of a membership notice. */
export function MembershipNoticeLine({ notice }: { notice: MembershipNotice }) {
  return (
    <Suspense fallback={null}>
      <Line notice={notice} />
    </Suspense>
  );
}
