import { ZAdminLoginRequest, ZOk } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { extractBearer, requestMeta } from '../../plugins/auth';
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
    async (request) => {
      const input = parseInput(ZAdminLoginRequest, request.body);
      return service.login(input, requestMeta(request));
    },
  );

  app.post('/api/admin/auth/logout.php', { preHandler: requireAdmin(ctx) }, async (request) => {
    const token = extractBearer(request);
    if (token) await ctx.sessions.revoke(token);
    return ZOk.parse({ success: true, message: 'Déconnecté' });
  });

  // The exact version helps whoever looks for a known flaw: only signed-in admins read it.
  app.get('/api/admin/version.php', { preHandler: requireAdmin(ctx) }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { success: true, version: ctx.config.version };
  });
}
