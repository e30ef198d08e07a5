import {
  KEY_API_PATHS,
  ZRotateEpochRequest,
  ZSaveMemberKeyRequest,
  ZShareEpochKeysRequest,
  type TKeyStateResponse,
} from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput, tooManyRequests } from '../../lib/app-error';
import { MINUTE_MS } from '../../lib/clock';
import { ringCaller } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { requireRingMember } from '../rings/ring.guard';
import { RingKeysService } from './ring-keys.service';

/**
 * The pre-handler that counts a member's key writes (publish, rotate, share, log appends) against
 * `RATE_LIMIT_KEY_WRITES_PER_MIN` (60 by default; 0 turns it off, as benchmarks that admit hundreds
 * of members do).
 */
export function limitKeyWrites(ctx: AppContext) {
  return async function limitWrites(request: FastifyRequest): Promise<void> {
    const perMinute = ctx.config.rateLimits.keyWritesPerMinute;
    if (perMinute <= 0) return;
    const { member } = ringCaller(request);
    const budget = await ctx.rateLimiter.hit(`key-writes:${member.id}`, perMinute, MINUTE_MS);
    if (!budget.allowed) throw tooManyRequests(Math.ceil(budget.resetMs / 1000));
  };
}

export async function ringKeysRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new RingKeysService(ctx);
  const preHandler = requireRingMember(ctx);
  const limitWrites = limitKeyWrites(ctx);

  app.get(KEY_API_PATHS.getMemberKey, { preHandler }, async (request) =>
    service.getMemberKey(ringCaller(request)),
  );

  app.post(
    KEY_API_PATHS.saveMemberKey,
    { preHandler: [preHandler, limitWrites], bodyLimit: BODY_LIMITS.form },
    async (request) => {
      const input = parseInput(ZSaveMemberKeyRequest, request.body);
      return { success: true, ...(await service.saveMemberKey(ringCaller(request), input)) };
    },
  );

  app.get(KEY_API_PATHS.state, { preHandler }, async (request): Promise<TKeyStateResponse> =>
    service.state(ringCaller(request)),
  );

  app.post(KEY_API_PATHS.rotate, { preHandler: [preHandler, limitWrites] }, async (request) => {
    const input = parseInput(ZRotateEpochRequest, request.body);
    return { success: true, ...(await service.rotate(ringCaller(request), input)) };
  });

  app.post(KEY_API_PATHS.share, { preHandler: [preHandler, limitWrites] }, async (request) => {
    const input = parseInput(ZShareEpochKeysRequest, request.body);
    return { success: true, ...(await service.share(ringCaller(request), input)) };
  });
}
