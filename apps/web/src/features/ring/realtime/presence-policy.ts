import type { TPresenceState, TRingRoomUser } from '@securering/contract';

/**
 * The members after a `presence_state` (the full list the server sends on join): online or not,
 * and `in_call` for online members in a connected call (servers that send no `inCall` list leave
 * everyone online).
 */
export function applyPresenceState(
  users: readonly TRingRoomUser[],
  event: Pick<TPresenceState, 'online'> & { inCall?: readonly string[] | undefined },
): TRingRoomUser[] {
  const online = new Set(event.online);
  const inCall = new Set(Array.isArray(event.inCall) ? event.inCall : []);
  return users.map((user) => ({
    ...user,
    isOnline: online.has(user.id),
    status: !online.has(user.id) ? 'offline' : inCall.has(user.id) ? 'in_call' : 'online',
  }));
}
