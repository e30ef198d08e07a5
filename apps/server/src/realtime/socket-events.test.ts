import { describe, expect, it } from 'vitest';
import { SocketEventLimiter } from './socket-events';

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
