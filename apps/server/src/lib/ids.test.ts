import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { newId } from './ids';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return {
    ...actual,
    randomBytes: vi.fn(actual.randomBytes),
    randomFillSync: vi.fn(actual.randomFillSync),
  };
});

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The id's random tail: the 62 random bits after the variant. */
const tailOf = (id: string) => id.slice(19);

describe('newId', () => {
  it('is a UUIDv7 whose first 48 bits are the millisecond given', () => {
    const now = Date.UTC(2026, 10, 29, 12, 0, 0, 123);
    const id = newId(now);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(now);
  });

  it('sorts ids made in the same millisecond in the order they were made, and after earlier ones', () => {
    const now = Date.now() + 60_000;
    const earlier = newId(now - 1);
    const ids = Array.from({ length: 1000 }, () => newId(now));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(earlier < ids[0]!).toBe(true);
  });

  it('never gives two ids the same random tail, across many refills of the random pool', () => {
    const tails = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = newId(Date.UTC(2026, 0, 1) + i);
      expect(id).toMatch(UUID_V7);
      tails.add(tailOf(id));
    }
    expect(tails.size).toBe(5000);
  });

  it('draws its random bytes from the CSPRNG a pool at a time, not once per id', () => {
    const fills = vi.mocked(crypto.randomFillSync);
    const draws = vi.mocked(crypto.randomBytes);
    fills.mockClear();
    draws.mockClear();
    for (let i = 0; i < 4000; i++) newId();
    // 4000 ids of 10 random bytes each: ten 4 KiB pools (the first may be what is left of one).
    expect(fills.mock.calls.length + draws.mock.calls.length).toBeLessThanOrEqual(11);
    expect(fills.mock.calls.length).toBeGreaterThanOrEqual(9);
  });
});
