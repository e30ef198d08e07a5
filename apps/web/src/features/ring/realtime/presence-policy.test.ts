import type { TRingRoomUser } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { applyPresenceState } from './presence-policy';

const user = (id: string): TRingRoomUser => ({
  id,
  username: id,
  role: 'member',
  status: 'offline',
  isOnline: false,
  lastSeen: null,
  isCurrentUser: false,
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
