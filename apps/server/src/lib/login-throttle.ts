import { tooManyRequests } from './app-error';
import type { RateLimiter } from './rate-limiter';

/**
 * Whose login budget an attempt spends. Every way of signing in as the same person shares one
 * budget: customer login with an email, Ring login with that email, and Ring login with the invite
 * code of a member (or owner) whose email it is.
 */
export const loginAccount = {
  email: (email: string) => `email:${email.trim().toLowerCase()}`,
  /** A Ring member without an email, reached by its invite code. */
  member: (memberId: string) => `member:${memberId}`,
  /** An invite code that matches no member. */
  inviteCode: (code: string) => `invite:${code.trim().toUpperCase()}`,
  admin: (username: string) => `admin:${username.trim().toLowerCase()}`,
} as const;

/**
 * Limits password checks per person so a password cannot be guessed, from one address or many.
 * An attempt is reserved before the password is checked, with the limiter's atomic increment, so
 * parallel attempts never check more passwords than the budget; a success gives the budget back.
 */
export class LoginThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  private key(account: string): string {
    return `login:${account}`;
  }

  /**
   * Spends one attempt of the account's budget, or throws 429 (with Retry-After) when it is used
   * up — before any password is hashed. Call it before verifying, and `clear` after a success.
   */
  async reserve(account: string): Promise<void> {
    const state = await this.limiter.hit(this.key(account), this.maxFailures, this.windowMs);
    if (!state.allowed) throw tooManyRequests(Math.ceil(state.resetMs / 1000));
  }

  /** A successful sign-in: the account's failures are forgotten. */
  async clear(account: string): Promise<void> {
    await this.limiter.reset(this.key(account), this.windowMs);
  }
}
