import type { Redis } from 'ioredis';

export interface RateLimitResult {
  allowed: boolean;
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/**
 * Fixed-window counters, windows aligned on the injected clock (so tests can move time).
 * Memory for one instance; Redis when several instances share the limits.
 */
export interface RateLimiter {
  /**
   * Counts one hit against `key` and tells whether it is within `limit` for the window. The
   * increment is atomic (Redis INCR, or one synchronous step in memory): checking a budget and
   * spending it are one operation, so parallel callers cannot all pass.
   */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult>;
  reset(key: string, windowMs: number): Promise<void>;
}

function windowOf(now: number, windowMs: number): { bucket: number; resetMs: number } {
  const bucket = Math.floor(now / windowMs);
  return { bucket, resetMs: (bucket + 1) * windowMs - now };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const now = this.now();
    this.sweep(now);
    const { bucket, resetMs } = windowOf(now, windowMs);
    const k = `${key}:${bucket}`;
    const entry = this.counts.get(k) ?? { count: 0, expiresAt: now + resetMs };
    entry.count += 1;
    this.counts.set(k, entry);
    return { allowed: entry.count <= limit, count: entry.count, resetMs };
  }

  async reset(key: string, windowMs: number): Promise<void> {
    this.counts.delete(`${key}:${windowOf(this.now(), windowMs).bucket}`);
  }

  // Expired windows are dropped at most once a minute so the map cannot grow without bound.
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, entry] of this.counts) if (entry.expiresAt <= now) this.counts.delete(key);
  }
}

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const { bucket, resetMs } = windowOf(this.now(), windowMs);
    const k = `${this.prefix}${key}:${bucket}`;
    // Keys outlive their window a little; Redis removes them on its own.
    const results = await this.redis
      .multi()
      .incr(k)
      .pexpire(k, windowMs * 2)
      .exec();
    const count = Number(results?.[0]?.[1] ?? 1);
    return { allowed: count <= limit, count, resetMs };
  }

  async reset(key: string, windowMs: number): Promise<void> {
    await this.redis.del(`${this.prefix}${key}:${windowOf(this.now(), windowMs).bucket}`);
  }
}

/**
 * Shared limits while the shared store answers, this instance's own limits while it does not (issue
 * 26): a Redis outage must not refuse every login and send, nor let them through unlimited. Each
 * instance then counts on its own, so a client spread over N instances gets at most N budgets for
 * the outage; the switch is logged both ways. `available` says whether to try the shared store at
 * all (a link known to be down fails over at once, without waiting for a timeout).
 */
export class FallbackRateLimiter implements RateLimiter {
  private degraded = false;

  constructor(
    private readonly shared: RateLimiter,
    private readonly local: RateLimiter,
    private readonly available: () => boolean,
    private readonly onSwitch: (degraded: boolean, error?: unknown) => void = () => undefined,
  ) {}

  /** Whether the last call was counted on this instance only. */
  get isDegraded(): boolean {
    return this.degraded;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    if (this.available()) {
      try {
        const result = await this.shared.hit(key, limit, windowMs);
        this.switchTo(false);
        return result;
      } catch (error) {
        this.switchTo(true, error);
      }
    } else this.switchTo(true);
    return this.local.hit(key, limit, windowMs);
  }

  async reset(key: string, windowMs: number): Promise<void> {
    await this.local.reset(key, windowMs);
    if (!this.available()) return;
    await this.shared.reset(key, windowMs).catch((error: unknown) => this.switchTo(true, error));
  }

  private switchTo(degraded: boolean, error?: unknown): void {
    if (degraded === this.degraded) return;
    this.degraded = degraded;
    this.onSwitch(degraded, error);
  }
}
