import type { TMintStreamTokenResponse } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { requestMeta, ringCaller } from '../../plugins/auth';
import { STREAM_TOKEN_TTL_MS } from '../sessions/session.service';
import { requireRingMember } from './ring.guard';

export async function ringStreamRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // A short-lived token that only opens a socket for this member; the Ring session token itself
  // never travels in a URL.
  app.post('/api/rings/mint-stream-token.php', { preHandler: requireRingMember(ctx) }, async (request) => {
    const { member } = ringCaller(request);
    const issued = await ctx.sessions.issue('stream', member.id, requestMeta(request));
    const response: TMintStreamTokenResponse = {
      success: true,
      stream_token: issued.token,
      expires_in: Math.floor(STREAM_TOKEN_TTL_MS / 1000),
    };
    return response;
  });
}
