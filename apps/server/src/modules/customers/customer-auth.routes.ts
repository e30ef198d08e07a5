import {
  ACCOUNT_MESSAGES,
  ZCustomerLoginRequest,
  ZForgotPasswordRequest,
  ZRegisterRequest,
  ZResendVerificationRequest,
  ZResetPasswordRequest,
  ZVerifyEmailQuery,
  type TCustomerStatusResponse,
  type TNeutralResponse,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { assertNotCommonPassword } from '../../lib/common-passwords';
import {
  clearSessionCookies,
  customerCaller,
  extractSessionToken,
  requestMeta,
  setSessionCookies,
} from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { ipRateLimit } from '../../plugins/rate-limit';
import { visitorHashOf } from '../subscriptions/visitor-selection';
import { requireCustomer } from './customer.guard';
import { toCustomerProfile } from './customer.policy';
import { CustomerAuthService } from './customer-auth.service';

export async function customerAuthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new CustomerAuthService(ctx);
  const perMinute = ctx.config.rateLimits.publicPerMinute;
  const limit = (name: string) => ipRateLimit(ctx.rateLimiter, name, perMinute);
  const bodyLimit = BODY_LIMITS.form;

  app.post('/api/auth/register.php', { bodyLimit, preHandler: limit('register') }, async (request) => {
    const input = parseInput(ZRegisterRequest, request.body);
    // Checked before the account lookup, so the answer is the same for a known address.
    assertNotCommonPassword(input.password);
    return service.register(input, requestMeta(request), visitorHashOf(request));
  });

  app.get('/api/auth/verify-email.php', { preHandler: limit('verify-email') }, async (request) => {
    const { token } = parseInput(ZVerifyEmailQuery, request.query);
    return service.verifyEmail(token);
  });

  app.post(
    '/api/auth/customer-login.php',
    { bodyLimit, preHandler: limit('customer-login') },
    async (request, reply) => {
      const answer = await service.login(
        parseInput(ZCustomerLoginRequest, request.body),
        requestMeta(request),
      );
      setSessionCookies(reply, request, ctx.config.publicUrl, 'customer', answer.token);
      return answer;
    },
  );

  app.get(
    '/api/auth/customer-status.php',
    { preHandler: requireCustomer(ctx) },
    async (request): Promise<TCustomerStatusResponse> => {
      return { success: true, customer: toCustomerProfile(customerCaller(request).customer) };
    },
  );

  app.post(
    '/api/auth/customer-logout.php',
    { bodyLimit, preHandler: requireCustomer(ctx) },
    async (request, reply) => {
      const token = extractSessionToken(request, 'customer');
      if (token) await ctx.sessions.revoke(token);
      clearSessionCookies(reply, request, ctx.config.publicUrl, 'customer');
      return { success: true, message: 'Déconnecté' };
    },
  );

  // Resend and forgot answer before looking the address up: the lookup, the token and the mail run
  // after the answer is sent, so a known and an unknown address cost the request the same time.
  app.post(
    '/api/auth/resend-verification.php',
    { bodyLimit, preHandler: limit('resend-verification') },
    async (request, reply): Promise<TNeutralResponse> => {
      const { email } = parseInput(ZResendVerificationRequest, request.body);
      ctx.deferred.afterResponse(reply, 'resend-verification', () => service.resendVerification(email));
      return { success: true, message: ACCOUNT_MESSAGES.resendNeutral };
    },
  );

  app.post(
    '/api/auth/forgot-password.php',
    { bodyLimit, preHandler: limit('forgot-password') },
    async (request, reply): Promise<TNeutralResponse> => {
      const { email } = parseInput(ZForgotPasswordRequest, request.body);
      const meta = requestMeta(request);
      ctx.deferred.afterResponse(reply, 'forgot-password', () => service.forgotPassword(email, meta));
      return { success: true, message: ACCOUNT_MESSAGES.forgotNeutral };
    },
  );

  app.post(
    '/api/auth/reset-password.php',
    { bodyLimit, preHandler: limit('reset-password') },
    async (request) => {
      const { token, password } = parseInput(ZResetPasswordRequest, request.body);
      assertNotCommonPassword(password);
      await service.resetPassword(token, password, requestMeta(request));
      return { success: true, message: ACCOUNT_MESSAGES.passwordReset };
    },
  );
}
