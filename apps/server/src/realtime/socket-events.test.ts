import { MESSAGES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { SocketEventLimiter, socketFailure } from './socket-events';

describe('SocketEventLimiter', () => {
  it('allows a member perMinute events of one name per minute, then refuses until the next minute', () => {
    let now = 60_000 * 10;
    const limiter = new SocketEventLimiter(() => now);
    const results = Array.from({ length: 5 }, () => limiter.allow('m1', 'call_offer', 3));
    expect(results).toEqual([true, true, true, false, false]);
    // Another member and another event have their own budget.
    expect(limiter.allow('m2', 'call_offer', 3)).toBe(true);
    expect(limiter.allow('m1', 'request_keys', 3)).toBe(true);
    now += 60_000;
    expect(limiter.allow('m1', 'call_offer', 3)).toBe(true);
  });

  it('refuses everything when the budget is zero', () => {
    expect(new SocketEventLimiter().allow('m1', 'x', 0)).toBe(false);
  });
});

describe('socketFailure', () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it('says in French that the service is unavailable when the database or Redis is down or too busy', () => {
    expect(socketFailure(new Error('timeout exceeded when trying to connect'))).toEqual({
      cause: 'database',
      error: MESSAGES.serviceUnavailable,
    });
    expect(socketFailure(withCode('canceling statement due to statement timeout', '57014'))).toEqual({
      cause: 'database',
      error: MESSAGES.serviceUnavailable,
    });
    expect(socketFailure(new Error('Connection is closed.'))).toEqual({
      cause: 'redis',
      error: MESSAGES.serviceUnavailable,
    });
  });

  it('says the disk is full, and keeps the generic error for a bug', () => {
    expect(socketFailure(withCode('database or disk is full', 'SQLITE_FULL'))).toEqual({
      cause: 'disk_full',
      error: MESSAGES.diskFull,
    });
    expect(socketFailure(new TypeError('x is undefined'))).toEqual({
      cause: 'bug',
      error: MESSAGES.internalError,
    });
  });
});
