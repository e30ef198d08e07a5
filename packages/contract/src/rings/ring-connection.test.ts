import { describe, expect, it } from 'vitest';
import {
  RING_CONNECTION,
  isSpareTokenUsable,
  reconnectDelayMs,
  spareTokenRenewalDelayMs,
} from './ring-connection';

describe('reconnectDelayMs', () => {
  it('waits half a second to a second before the first attempt', () => {
    expect(reconnectDelayMs(0, () => 0)).toBe(500);
    expect(reconnectDelayMs(0, () => 0.999_999)).toBe(1000);
  });

  it('then draws in a window from 1 s whose top doubles up to 5 s', () => {
    const window = (attempt: number) => [
      reconnectDelayMs(attempt, () => 0),
      reconnectDelayMs(attempt, () => 0.999_999),
    ];
    expect(window(1)).toEqual([1000, 2000]);
    expect(window(2)).toEqual([1000, 4000]);
    expect(window(3)).toEqual([1000, 5000]);
    expect(window(50)).toEqual([1000, 5000]);
  });

  it('stays within the specified bounds for any attempt count and draw', () => {
    for (const attempt of [-1, 0, 1, 2, 3, 7, 1e9, Number.NaN, Number.POSITIVE_INFINITY])
      for (const draw of [0, 0.25, 0.5, 0.75, 0.999_999]) {
        const delay = reconnectDelayMs(attempt, () => draw);
        expect(delay).toBeGreaterThanOrEqual(RING_CONNECTION.reconnectMinMs / 2);
        expect(delay).toBeLessThanOrEqual(RING_CONNECTION.reconnectMaxMs);
      }
  });

  it('spreads clients that failed the same number of times over the whole window', () => {
    // A thousand clients of one stopped instance, each on its fourth attempt.
    let seed = 42;
    const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646;
    const delays = Array.from({ length: 1000 }, () => reconnectDelayMs(4, random));
    const perSecond = [1, 2, 3, 4].map(
      (s) => delays.filter((d) => d >= s * 1000 && d < (s + 1) * 1000).length,
    );
    // Each second of the 1–5 s window gets about a quarter of them, none gets them all.
    for (const count of perSecond) expect(count).toBeGreaterThan(150);
    for (const count of perSecond) expect(count).toBeLessThan(350);
  });
});

describe('spare stream token', () => {
  const minute = 60_000;

  it('asks for the first one at a random moment between 1 s and 30 s', () => {
    expect(spareTokenRenewalDelayMs(undefined, 0, () => 0)).toBe(1000);
    expect(spareTokenRenewalDelayMs(undefined, 0, () => 0.999_999)).toBe(30_000);
    expect(spareTokenRenewalDelayMs(Number.NaN, 0, () => 0.5)).toBe(15_500);
  });

  it('renews the one it holds a minute before it expires', () => {
    const now = 1_000_000;
    expect(spareTokenRenewalDelayMs(now + 5 * minute, now)).toBe(4 * minute);
    expect(spareTokenRenewalDelayMs(now + minute + 1, now)).toBe(1);
  });

  it('asks again soon for one that has less than a minute left or has expired', () => {
    const now = 1_000_000;
    for (const left of [minute, 30_000, 0, -minute])
      expect(spareTokenRenewalDelayMs(now + left, now, () => 0)).toBe(1000);
  });

  it('uses a spare only while it has more than 10 s to live', () => {
    expect(isSpareTokenUsable(20_000, 0)).toBe(true);
    expect(isSpareTokenUsable(10_001, 0)).toBe(true);
    expect(isSpareTokenUsable(10_000, 0)).toBe(false);
    expect(isSpareTokenUsable(0, 5000)).toBe(false);
  });
});
