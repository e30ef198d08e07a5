import {
  RING_LAST_TAB_REASON,
  ZAcceptInviteRequest,
  ZCustomerRingSessionRequest,
  ZInviteInfoQuery,
  ZRingLoginRequest,
  ZRingLogoutRequest,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { assertNotCommonPassword } from '../../lib/common-passwords';
import { customerCaller, extractBearer, requestMeta, ringCaller } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { ipRateLimit } from '../../plugins/rate-limit';
import { requireCustomer } from '../customers/customer.guard';
import { requireRingMember } from './ring.guard';
import { RingAccessService } from './ring-access.service';

export async function ringAccessRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new RingAccessService(ctx);
  const perMinute = ctx.config.rateLimits.publicPerMinute;

  app.post(
    '/api/rings/accept-invite.php',
    { bodyLimit: BODY_LIMITS.form, preHandler: ipRateLimit(ctx.rateLimiter, 'ring-accept', perMinute) },
    async (request) => {
      const input = parseInput(ZAcceptInviteRequest, request.body);
      assertNotCommonPassword(input.password);
      return service.acceptInvite(input, requestMeta(request));
    },
  );

  app.post(
    '/api/rings/login.php',
    { bodyLimit: BODY_LIMITS.form, preHandler: ipRateLimit(ctx.rateLimiter, 'ring-login', perMinute) },
    async (request) => {
      return service.login(parseInput(ZRingLoginRequest, request.body), requestMeta(request));
    },
  );

  app.get(
    '/api/rings/invite-info.php',
    { preHandler: ipRateLimit(ctx.rateLimiter, 'ring-invite-info', perMinute) },
    async (request) => {
      const { code } = parseInput(ZInviteInfoQuery, request.query);
      return { success: true, data: await service.inviteInfo(code) };
    },
  );

  // "Accéder à mon Ring": the customer session opens a Ring session for the owner member.
  app.post(
    '/api/customer/ring-session.php',
    { bodyLimit: BODY_LIMITS.form, preHandler: requireCustomer(ctx) },
    async (request) => {
      const { ring_id } = parseInput(ZCustomerRingSessionRequest, request.body ?? {});
      return service.openForOwner(customerCaller(request).customer, ring_id, requestMeta(request));
    },
  );

  app.post('/api/rings/logout.php', { preHandler: requireRingMember(ctx) }, async (request) => {
    const { reason } = parseInput(ZRingLogoutRequest, request.body ?? {});
    const caller = ringCaller(request);
    await service.logout(caller, extractBearer(request) ?? '', reason);
    // The session's stream tokens were revoked with it; its open sockets close on every instance.
    // (A closed last tab has no socket left, and a reload's new socket must stay.)
    if (reason !== 'unload' && reason !== RING_LAST_TAB_REASON)
      ctx.realtime.disconnectSession(caller.session.id);
    return { success: true, message: 'Déconnecté' };
  });

  app.get('/api/rings/info.php', { preHandler: requireRingMember(ctx) }, async (request) => {
    return service.info(ringCaller(request));
  });
}
