import type { FastifyRequest } from 'fastify';
import { tooManyRequests } from '../lib/app-error';
import type { RateLimiter } from '../lib/rate-limiter';

/**
 * A preHandler limiting calls per IP on one public endpoint (forms, logins). Authenticated calls
 * are not limited here: only anonymous entry points are.
 */
export function ipRateLimit(limiter: RateLimiter, name: string, perMinute: number) {
  return async (request: FastifyRequest): Promise<void> => {
    if (perMinute <= 0) return;
    const result = await limiter.hit(`ip:${name}:${request.ip}`, perMinute, 60_000);
    if (!result.allowed) throw tooManyRequests(Math.ceil(result.resetMs / 1000));
  };
}
