import { CALL_API_PATHS, ZCallConfigQuery } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput, tooManyRequests } from '../../lib/app-error';
import { MINUTE_MS } from '../../lib/clock';
import { ringCaller } from '../../plugins/auth';
import { requireRingMember } from '../rings/ring.guard';
import { CallService } from './calls.service';

/** call-config reads a Ring session may make per minute (the web client reads it once per call). */
export const CALL_CONFIG_PER_SESSION_PER_MIN = 30;

export async function callsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new CallService(ctx);

  // STUN/TURN servers with TURN credentials for this member in one answered call (TURN REST API scheme).
  app.get(CALL_API_PATHS.callConfig, { preHandler: requireRingMember(ctx) }, async (request, reply) => {
    const caller = ringCaller(request);
    const budget = await ctx.rateLimiter.hit(
      `call-config:${caller.session.id}`,
      CALL_CONFIG_PER_SESSION_PER_MIN,
      MINUTE_MS,
    );
    if (!budget.allowed) throw tooManyRequests(Math.ceil(budget.resetMs / 1000));
    const { callId } = parseInput(ZCallConfigQuery, request.query);
    reply.header('Cache-Control', 'no-store');
    return service.callConfig(caller, callId);
  });
}
