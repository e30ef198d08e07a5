import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../lib/clock';
import { ADMIN_IDLE_TIMEOUT_MS, isIdleExpired } from './session.service';

const created = '2026-11-22T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(created) + ms);

describe('isIdleExpired', () => {
  it('is 12 hours', () => {
    expect(ADMIN_IDLE_TIMEOUT_MS).toBe(12 * HOUR_MS);
  });

  it('counts from the last use of an admin session', () => {
    const session = {
      audience: 'admin' as const,
      created_at: created,
      last_used_at: at(20 * HOUR_MS).toISOString(),
    };
    expect(isIdleExpired(session, at(32 * HOUR_MS))).toBe(false);
    expect(isIdleExpired(session, at(32 * HOUR_MS + 1))).toBe(true);
  });

  it('counts from the creation of a session never used', () => {
    const session = { audience: 'admin' as const, created_at: created, last_used_at: null };
    expect(isIdleExpired(session, at(12 * HOUR_MS))).toBe(false);
    expect(isIdleExpired(session, at(12 * HOUR_MS + 1))).toBe(true);
  });

  it('leaves the other audiences to their own expiry', () => {
    for (const audience of ['customer', 'ring', 'stream'] as const) {
      expect(isIdleExpired({ audience, created_at: created, last_used_at: null }, at(100 * HOUR_MS))).toBe(
        false,
      );
    }
  });
});
