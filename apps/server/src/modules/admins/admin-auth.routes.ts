import { ZAdminLoginRequest, ZOk } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { clearSessionCookies, extractSessionToken, requestMeta, setSessionCookies } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { ipRateLimit } from '../../plugins/rate-limit';
import { requireAdmin } from './admin.guard';
import { AdminAuthService } from './admin-auth.service';

export async function adminAuthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminAuthService(ctx);
  const limit = ipRateLimit(ctx.rateLimiter, 'admin-login', ctx.config.rateLimits.publicPerMinute);

  app.post(
    '/api/admin/auth/login.php',
    { bodyLimit: BODY_LIMITS.form, preHandler: limit },
    async (request, reply) => {
      const input = parseInput(ZAdminLoginRequest, request.body);
      const answer = await service.login(input, requestMeta(request));
      setSessionCookies(reply, request, ctx.config.publicUrl, 'admin', answer.token);
      return answer;
    },
  );

  app.post('/api/admin/auth/logout.php', { preHandler: requireAdmin(ctx) }, async (request, reply) => {
    const token = extractSessionToken(request, 'admin');
    if (token) await ctx.sessions.revoke(token);
    clearSessionCookies(reply, request, ctx.config.publicUrl, 'admin');
    return ZOk.parse({ success: true, message: 'Déconnecté' });
  });

  // The exact version helps whoever looks for a known flaw: only signed-in admins read it.
  app.get('/api/admin/version.php', { preHandler: requireAdmin(ctx) }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { success: true, version: ctx.config.version };
  });
}
