import type { TPresenceState, TPresenceUpdate, TRingRoomUser } from '@securering/contract';

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

/**
 * The members after `presence_update`s (one event, or the list of a `presence_updates`), applied
 * in order: the last change of a member wins; an offline change keeps the last-seen time it
 * carries, an online one keeps the one known.
 */
export function applyPresenceUpdates(
  users: readonly TRingRoomUser[],
  updates: readonly Pick<TPresenceUpdate, 'userId' | 'status' | 'lastSeen'>[],
): TRingRoomUser[] {
  const latest = new Map<string, Pick<TPresenceUpdate, 'status' | 'lastSeen'>>();
  for (const update of updates) latest.set(update.userId, update);
  return users.map((user) => {
    const update = latest.get(user.id);
    return update
      ? {
          ...user,
          status: update.status,
          isOnline: update.status !== 'offline',
          lastSeen: update.lastSeen ?? user.lastSeen,
        }
      : user;
  });
}

/** A member's presence as the room shows it: its status, or `unknown`. */
export type ShownPresence = TRingRoomUser['status'] | 'unknown';

/**
 * What the room shows of a member's presence. While the server cannot reach the other instances
 * (realtime mode `polling`, Redis down) it sees only its own sockets: the others' presence is then
 * « statut inconnu » rather than a wrong « Hors ligne ». The viewer is online, whatever the mode.
 */
export function shownPresence(
  user: Pick<TRingRoomUser, 'status' | 'isCurrentUser'>,
  mode: 'live' | 'polling',
): ShownPresence {
  return mode === 'polling' && !user.isCurrentUser ? 'unknown' : user.status;
}
