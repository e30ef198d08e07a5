import type { TRingUser } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { membersSummary } from './seat-counts';

const user = (role: TRingUser['role'], status: TRingUser['status']): TRingUser => ({
  id: `${role}-${status}-${Math.random()}`,
  username: 'x',
  email: null,
  status,
  role,
  inviteCode: 'ABCD1234',
  isUsed: status !== 'invited',
  online: false,
  lastSeen: null,
  createdAt: '2026-11-24T10:00:00.000Z',
  admission: status === 'invited' ? null : 'admitted',
  inviteExpiresAt: null,
});

describe('membersSummary', () => {
  it('counts accepted and invited members like the plan, and names the owner apart', () => {
    expect(
      membersSummary([user('owner', 'active'), user('member', 'active'), user('admin', 'invited')]),
    ).toBe('2 utilisateurs et vous (propriétaire)');
    expect(membersSummary([user('owner', 'active')])).toBe('0 utilisateur et vous (propriétaire)');
  });

  it('says deactivated members are not counted', () => {
    expect(
      membersSummary([user('owner', 'active'), user('member', 'active'), user('member', 'inactive')]),
    ).toBe('1 utilisateur et vous (propriétaire)\u202f; 1 désactivé, non compté');
  });
});
