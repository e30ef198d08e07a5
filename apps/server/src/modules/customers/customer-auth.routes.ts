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
import { customerCaller, extractBearer, requestMeta } from '../../plugins/auth';
import { ipRateLimit } from '../../plugins/rate-limit';
import { requireCustomer } from './customer.guard';
import { toCustomerProfile } from './customer.policy';
import { CustomerAuthService } from './customer-auth.service';

export async function customerAuthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new CustomerAuthService(ctx);
  const perMinute = ctx.config.rateLimits.publicPerMinute;
  const limit = (name: string) => ipRateLimit(ctx.rateLimiter, name, perMinute);

  app.post('/api/auth/register.php', { preHandler: limit('register') }, async (request) => {
    return service.register(parseInput(ZRegisterRequest, request.body), requestMeta(request));
  });

  app.get('/api/auth/verify-email.php', { preHandler: limit('verify-email') }, async (request) => {
    const { token } = parseInput(ZVerifyEmailQuery, request.query);
    return service.verifyEmail(token);
  });

  app.post('/api/auth/customer-login.php', { preHandler: limit('customer-login') }, async (request) => {
    return service.login(parseInput(ZCustomerLoginRequest, request.body), requestMeta(request));
  });

  app.get(
    '/api/auth/customer-status.php',
    { preHandler: requireCustomer(ctx) },
    async (request): Promise<TCustomerStatusResponse> => {
      return { success: true, customer: toCustomerProfile(customerCaller(request).customer) };
    },
  );

  app.post('/api/auth/customer-logout.php', { preHandler: requireCustomer(ctx) }, async (request) => {
    const token = extractBearer(request);
    if (token) await ctx.sessions.revoke(token);
    return { success: true, message: 'Déconnecté' };
  });

  app.post(
    '/api/auth/resend-verification.php',
    { preHandler: limit('resend-verification') },
    async (request): Promise<TNeutralResponse> => {
      const { email } = parseInput(ZResendVerificationRequest, request.body);
      await service.resendVerification(email);
      return { success: true, message: ACCOUNT_MESSAGES.resendNeutral };
    },
  );

  app.post(
    '/api/auth/forgot-password.php',
    { preHandler: limit('forgot-password') },
    async (request): Promise<TNeutralResponse> => {
      const { email } = parseInput(ZForgotPasswordRequest, request.body);
      await service.forgotPassword(email, requestMeta(request));
      return { success: true, message: ACCOUNT_MESSAGES.forgotNeutral };
    },
  );

  app.post('/api/auth/reset-password.php', { preHandler: limit('reset-password') }, async (request) => {
    const { token, password } = parseInput(ZResetPasswordRequest, request.body);
    await service.resetPassword(token, password, requestMeta(request));
    return { success: true, message: ACCOUNT_MESSAGES.passwordReset };
  });
}
