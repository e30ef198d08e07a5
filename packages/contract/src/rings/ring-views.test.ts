import { describe, expect, it } from 'vitest';
import { isInvitationExpired } from './ring-views';

describe('isInvitationExpired (issue 27)', () => {
  const now = Date.parse('2026-11-29T12:00:00.000Z');

  it('is true for a pending invitation at or past its expiry only', () => {
    expect(isInvitationExpired({ isUsed: false, inviteExpiresAt: '2026-11-29T11:59:59.000Z' }, now)).toBe(
      true,
    );
    expect(isInvitationExpired({ isUsed: false, inviteExpiresAt: '2026-11-29T12:00:00.000Z' }, now)).toBe(
      true,
    );
    expect(isInvitationExpired({ isUsed: false, inviteExpiresAt: '2026-12-06T12:00:00.000Z' }, now)).toBe(
      false,
    );
  });

  it('is false once accepted, and for an invitation without expiry', () => {
    expect(isInvitationExpired({ isUsed: true, inviteExpiresAt: '2026-11-01T00:00:00.000Z' }, now)).toBe(
      false,
    );
    expect(isInvitationExpired({ isUsed: false, inviteExpiresAt: null }, now)).toBe(false);
  });
});
