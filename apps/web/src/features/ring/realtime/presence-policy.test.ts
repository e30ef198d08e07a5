import type { TRingRoomUser } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { applyPresenceState, applyPresenceUpdates, shownPresence } from './presence-policy';

const user = (id: string): TRingRoomUser => ({
  id,
  username: id,
  role: 'member',
  status: 'offline',
  isOnline: false,
  lastSeen: null,
  isCurrentUser: false,
  joinedAt: null,
  keys: null,
});

describe('presence_state', () => {
  it('marks online members, and those in a connected call as in_call', () => {
    const users = applyPresenceState([user('a'), user('b'), user('c')], {
      online: ['a', 'b'],
      inCall: ['b'],
    });
    expect(users.map((u) => [u.id, u.status, u.isOnline])).toEqual([
      ['a', 'online', true],
      ['b', 'in_call', true],
      ['c', 'offline', false],
    ]);
  });

  it('never shows an offline member in a call, and tolerates a missing inCall list', () => {
    expect(applyPresenceState([user('a')], { online: [], inCall: ['a'] })[0]!.status).toBe('offline');
    expect(applyPresenceState([user('a')], { online: ['a'] })[0]!.status).toBe('online');
  });
});

describe('presence_update and presence_updates', () => {
  it('applies each change in order, the last one of a member winning, and leaves the others alone', () => {
    const users = applyPresenceUpdates(
      [user('a'), user('b'), user('c')],
      [
        { userId: 'a', status: 'online', lastSeen: null },
        { userId: 'b', status: 'online', lastSeen: null },
        { userId: 'b', status: 'in_call', lastSeen: null },
      ],
    );
    expect(users.map((u) => [u.id, u.status, u.isOnline])).toEqual([
      ['a', 'online', true],
      ['b', 'in_call', true],
      ['c', 'offline', false],
    ]);
  });

  it('records the last-seen time of a member going offline, and keeps it when one comes online', () => {
    const seen = '2026-11-27T10:00:00.000Z';
    const [gone] = applyPresenceUpdates(
      [{ ...user('a'), status: 'online', isOnline: true }],
      [{ userId: 'a', status: 'offline', lastSeen: seen }],
    );
    expect(gone).toMatchObject({ status: 'offline', isOnline: false, lastSeen: seen });
    const [back] = applyPresenceUpdates([gone!], [{ userId: 'a', status: 'online', lastSeen: null }]);
    expect(back).toMatchObject({ status: 'online', isOnline: true, lastSeen: seen });
  });
});

describe('shownPresence', () => {
  it('shows every other member as unknown while the server polls, and the real status otherwise', () => {
    const other = { status: 'offline' as const, isCurrentUser: false };
    const self = { status: 'online' as const, isCurrentUser: true };
    expect(shownPresence(other, 'polling')).toBe('unknown');
    expect(shownPresence({ ...other, status: 'online' }, 'polling')).toBe('unknown');
    expect(shownPresence(self, 'polling')).toBe('online');
    expect(shownPresence(other, 'live')).toBe('offline');
    expect(shownPresence({ ...other, status: 'in_call' }, 'live')).toBe('in_call');
  });
});
