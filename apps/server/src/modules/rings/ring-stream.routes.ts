import type { TMintStreamTokenResponse } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { tooManyRequests } from '../../lib/app-error';
import { MINUTE_MS } from '../../lib/clock';
import { requestMeta, ringCaller } from '../../plugins/auth';
import { STREAM_TOKEN_TTL_MS } from '../sessions/session.service';
import { requireRingMember } from './ring.guard';

/**
 * Stream tokens a Ring session may mint per minute. The web client mints one per (re)connection,
 * with at least a second between attempts, so honest use stays well below.
 */
export const STREAM_TOKENS_PER_SESSION_PER_MIN = 30;

export async function ringStreamRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // A short-lived, single-use token that only opens a socket for this member, bound to the Ring
  // session that minted it; the Ring session token itself never travels in a URL.
  app.post('/api/rings/mint-stream-token.php', { preHandler: requireRingMember(ctx) }, async (request) => {
    const { session } = ringCaller(request);
    const budget = await ctx.rateLimiter.hit(
      `stream-mint:${session.id}`,
      STREAM_TOKENS_PER_SESSION_PER_MIN,
      MINUTE_MS,
    );
    if (!budget.allowed) throw tooManyRequests(Math.ceil(budget.resetMs / 1000));
    const issued = await ctx.sessions.issueStreamToken(session, requestMeta(request));
    const response: TMintStreamTokenResponse = {
      success: true,
      stream_token: issued.token,
      expires_in: Math.floor(STREAM_TOKEN_TTL_MS / 1000),
    };
    return response;
  });
}
