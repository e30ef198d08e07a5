import { tooManyRequests } from './app-error';
import type { RateLimiter } from './rate-limiter';

/**
 * Counts failed logins per account so a password cannot be guessed from many addresses.
 * Success clears the count.
 */
export class LoginThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  private key(scope: string, account: string): string {
    return `login-fail:${scope}:${account.trim().toLowerCase()}`;
  }

  /** Throws 429 while the account has used up its failures for the window. */
  async assertAllowed(scope: string, account: string): Promise<void> {
    const state = await this.limiter.peek(this.key(scope, account), this.maxFailures, this.windowMs);
    if (!state.allowed) throw tooManyRequests(Math.ceil(state.resetMs / 1000));
  }

  async recordFailure(scope: string, account: string): Promise<void> {
    await this.limiter.hit(this.key(scope, account), this.maxFailures, this.windowMs);
  }

  async clear(scope: string, account: string): Promise<void> {
    await this.limiter.reset(this.key(scope, account), this.windowMs);
  }
}
