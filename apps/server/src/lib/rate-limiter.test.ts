import { describe, expect, it } from 'vitest';
import { FallbackRateLimiter, MemoryRateLimiter, type RateLimiter } from './rate-limiter';

describe('MemoryRateLimiter', () => {
  it('allows up to the limit within a window, then refuses until the next window', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.hit('k', 3, 60_000));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results[3]!.resetMs).toBeGreaterThan(0);
    expect(results[3]!.resetMs).toBeLessThanOrEqual(60_000);
    now += 60_000;
    expect((await limiter.hit('k', 3, 60_000)).allowed).toBe(true);
  });

  it('resets on demand', async () => {
    const limiter = new MemoryRateLimiter(() => 5_000);
    await limiter.hit('a', 2, 60_000);
    expect(await limiter.hit('a', 2, 60_000)).toMatchObject({ allowed: true, count: 2 });
    await limiter.reset('a', 60_000);
    expect(await limiter.hit('a', 2, 60_000)).toMatchObject({ allowed: true, count: 1 });
  });

  it('lets exactly `limit` of many parallel hits through', async () => {
    const limiter = new MemoryRateLimiter(() => 5_000);
    const results = await Promise.all(Array.from({ length: 40 }, () => limiter.hit('p', 10, 60_000)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  it('keeps keys apart', async () => {
    const limiter = new MemoryRateLimiter(() => 0);
    await limiter.hit('a', 1, 1000);
    expect((await limiter.hit('b', 1, 1000)).allowed).toBe(true);
  });
});

describe('FallbackRateLimiter', () => {
  const failing: RateLimiter = {
    hit: () => Promise.reject(new Error('Connection is closed.')),
    reset: () => Promise.reject(new Error('Connection is closed.')),
  };

  it('counts on the shared store while it answers, on this instance while it fails, and says when it switches', async () => {
    const shared = new MemoryRateLimiter(() => 5_000);
    const local = new MemoryRateLimiter(() => 5_000);
    let up = true;
    const store: RateLimiter = {
      hit: (...a) => (up ? shared.hit(...a) : failing.hit(...a)),
      reset: (...a) => shared.reset(...a),
    };
    const switches: boolean[] = [];
    const limiter = new FallbackRateLimiter(
      store,
      local,
      () => true,
      (degraded) => switches.push(degraded),
    );

    expect(await limiter.hit('k', 2, 60_000)).toMatchObject({ allowed: true, count: 1 });
    up = false;
    // The shared store fails: the call is still limited, by this instance's own counter.
    expect(await limiter.hit('k', 2, 60_000)).toMatchObject({ allowed: true, count: 1 });
    expect(await limiter.hit('k', 2, 60_000)).toMatchObject({ allowed: true, count: 2 });
    expect(await limiter.hit('k', 2, 60_000)).toMatchObject({ allowed: false, count: 3 });
    expect(limiter.isDegraded).toBe(true);
    up = true;
    expect(await limiter.hit('k', 2, 60_000)).toMatchObject({ allowed: true, count: 2 });
    expect(switches).toEqual([true, false]);
  });

  it('does not wait for a store known to be down', async () => {
    let asked = 0;
    const store: RateLimiter = {
      hit: () => {
        asked += 1;
        return new Promise(() => undefined);
      },
      reset: () => Promise.resolve(),
    };
    const limiter = new FallbackRateLimiter(store, new MemoryRateLimiter(() => 0), () => false);
    expect(await limiter.hit('k', 1, 1000)).toMatchObject({ allowed: true });
    expect(await limiter.hit('k', 1, 1000)).toMatchObject({ allowed: false });
    expect(asked).toBe(0);
  });
});
