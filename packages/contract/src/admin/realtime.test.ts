import { describe, expect, it } from 'vitest';
import { isFreshTimestamp } from './realtime';

describe('isFreshTimestamp', () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const sec = now / 1000;
  it('accepts unix seconds within five minutes either way', () => {
    expect(isFreshTimestamp(String(sec), now)).toBe(true);
    expect(isFreshTimestamp(String(sec - 300), now)).toBe(true);
    expect(isFreshTimestamp(String(sec + 300), now)).toBe(true);
  });
  it('refuses stale, future, missing, millisecond and non-numeric values', () => {
    expect(isFreshTimestamp(String(sec - 301), now)).toBe(false);
    expect(isFreshTimestamp(String(sec + 301), now)).toBe(false);
    expect(isFreshTimestamp(undefined, now)).toBe(false);
    expect(isFreshTimestamp(String(now), now)).toBe(false);
    expect(isFreshTimestamp('12a', now)).toBe(false);
    expect(isFreshTimestamp(['1'], now)).toBe(false);
  });
});
