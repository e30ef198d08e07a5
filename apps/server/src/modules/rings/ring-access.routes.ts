import { ZAcceptInviteRequest, ZRingLoginRequest, ZRingLogoutRequest } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { extractBearer, requestMeta, ringCaller } from '../../plugins/auth';
import { ipRateLimit } from '../../plugins/rate-limit';
import { requireRingMember } from './ring.guard';
import { RingAccessService } from './ring-access.service';

export async function ringAccessRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new RingAccessService(ctx);
  const perMinute = ctx.config.rateLimits.publicPerMinute;

  app.post(
    '/api/rings/accept-invite.php',
    { preHandler: ipRateLimit(ctx.rateLimiter, 'ring-accept', perMinute) },
    async (request) => {
      return service.acceptInvite(parseInput(ZAcceptInviteRequest, request.body), requestMeta(request));
    },
  );

  app.post(
    '/api/rings/login.php',
    { preHandler: ipRateLimit(ctx.rateLimiter, 'ring-login', perMinute) },
    async (request) => {
      return service.login(parseInput(ZRingLoginRequest, request.body), requestMeta(request));
    },
  );

  app.post('/api/rings/logout.php', { preHandler: requireRingMember(ctx) }, async (request) => {
    const { reason } = parseInput(ZRingLogoutRequest, request.body ?? {});
    const caller = ringCaller(request);
    await service.logout(caller, extractBearer(request) ?? '', reason);
    if (reason !== 'unload') ctx.realtime.disconnectMember(caller.member.id);
    return { success: true, message: 'Déconnecté' };
  });

  app.get('/api/rings/info.php', { preHandler: requireRingMember(ctx) }, async (request) => {
    return service.info(ringCaller(request));
  });
}
