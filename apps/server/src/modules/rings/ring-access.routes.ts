import {
  MEMBER_ACCESS_API_PATHS,
  MEMBER_ACCESS_MESSAGES,
  RING_LAST_TAB_REASON,
  ZAcceptInviteRequest,
  ZCustomerRingSessionRequest,
  ZInviteInfoQuery,
  ZRingLoginRequest,
  ZRingForgotPasswordRequest,
  ZRingLogoutRequest,
  ZRingResetPasswordRequest,
  type TNeutralResponse,
} from '@securering/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { assertNotCommonPassword } from '../../lib/common-passwords';
import {
  clearSessionCookies,
  customerCaller,
  extractSessionToken,
  requestMeta,
  ringCaller,
  setSessionCookies,
} from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { ipRateLimit } from '../../plugins/rate-limit';
import { requireCustomer } from '../customers/customer.guard';
import { requireRingMember } from './ring.guard';
import { MemberPasswordService } from './member-password.service';
import { RingAccessService } from './ring-access.service';

export async function ringAccessRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new RingAccessService(ctx);
  const perMinute = ctx.config.rateLimits.publicPerMinute;

  /** A login's answer, with the Ring session's cookies set when it opened one (not a Ring choice). */
  function withRingCookies<T extends object>(request: FastifyRequest, reply: FastifyReply, answer: T): T {
    if ('token' in answer && typeof answer.token === 'string')
      setSessionCookies(reply, request, ctx.config.publicUrl, 'ring', answer.token);
    return answer;
  }

  app.post(
    '/api/rings/accept-invite.php',
    { bodyLimit: BODY_LIMITS.form, preHandler: ipRateLimit(ctx.rateLimiter, 'ring-accept', perMinute) },
    async (request, reply) => {
      const input = parseInput(ZAcceptInviteRequest, request.body);
      assertNotCommonPassword(input.password);
      return withRingCookies(request, reply, await service.acceptInvite(input, requestMeta(request)));
    },
  );

  app.post(
    '/api/rings/login.php',
    { bodyLimit: BODY_LIMITS.form, preHandler: ipRateLimit(ctx.rateLimiter, 'ring-login', perMinute) },
    async (request, reply) => {
      const answer = await service.login(parseInput(ZRingLoginRequest, request.body), requestMeta(request));
      return withRingCookies(request, reply, answer);
    },
  );

  // « Mot de passe oublié » of a member: answered before the lookup, so a known and an unknown
  // address look and cost the same (the link is made and mailed after the answer).
  const passwords = new MemberPasswordService(ctx);
  app.post(
    MEMBER_ACCESS_API_PATHS.forgotPassword,
    { bodyLimit: BODY_LIMITS.form, preHandler: ipRateLimit(ctx.rateLimiter, 'ring-forgot-password', perMinute) },
    async (request, reply): Promise<TNeutralResponse> => {
      const { email } = parseInput(ZRingForgotPasswordRequest, request.body);
      const meta = requestMeta(request);
      ctx.deferred.afterResponse(reply, 'ring-forgot-password', () => passwords.forgotPassword(email, meta));
      return { success: true, message: MEMBER_ACCESS_MESSAGES.forgotNeutral };
    },
  );

  app.post(
    MEMBER_ACCESS_API_PATHS.resetPassword,
    { bodyLimit: BODY_LIMITS.form, preHandler: ipRateLimit(ctx.rateLimiter, 'ring-reset-password', perMinute) },
    async (request) => {
      const { token, password } = parseInput(ZRingResetPasswordRequest, request.body);
      assertNotCommonPassword(password);
      await passwords.resetPassword(token, password, requestMeta(request));
      return { success: true, message: MEMBER_ACCESS_MESSAGES.passwordReset };
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
    async (request, reply) => {
      const { ring_id } = parseInput(ZCustomerRingSessionRequest, request.body ?? {});
      const meta = requestMeta(request);
      return withRingCookies(
        request,
        reply,
        await service.openForOwner(customerCaller(request).customer, ring_id, meta),
      );
    },
  );

  app.post('/api/rings/logout.php', { preHandler: requireRingMember(ctx) }, async (request, reply) => {
    const { reason } = parseInput(ZRingLogoutRequest, request.body ?? {});
    const caller = ringCaller(request);
    await service.logout(caller, extractSessionToken(request, 'ring') ?? '', reason);
    // A closed last tab keeps its cookie: a reload within the grace reopens the session.
    if (reason !== 'unload' && reason !== RING_LAST_TAB_REASON)
      clearSessionCookies(reply, request, ctx.config.publicUrl, 'ring');
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
