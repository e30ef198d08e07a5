import { ZClientLogRequest } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { badRequest } from '../../lib/app-error';
import { requestMeta } from '../../plugins/auth';
import { ipRateLimit } from '../../plugins/rate-limit';

const CLIENT_LOGS_PER_MINUTE = 120;

export async function clientLogRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  await root.register(async (app) => clientLogRoute(app, ctx));
}

async function clientLogRoute(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Browsers report with navigator.sendBeacon, which posts JSON as text/plain.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(null, body);
    }
  });

  // Fire-and-forget reports from browsers: small bodies, per-IP limit, and the write never fails
  // the request (SystemLogService swallows storage errors).
  app.post(
    '/api/utils/log.php',
    { bodyLimit: 16 * 1024, preHandler: ipRateLimit(ctx.rateLimiter, 'client-log', CLIENT_LOGS_PER_MINUTE) },
    async (request) => {
      const parsed = ZClientLogRequest.safeParse(request.body ?? {});
      if (!parsed.success) throw badRequest('Entrée de journal invalide');
      const { level, category, message, details, user_id } = parsed.data;
      const meta = requestMeta(request);
      await ctx.systemLog.write({
        level,
        category,
        message,
        // The reported user id is the client's claim, kept apart from authenticated ids.
        details: {
          source: 'client',
          ...(user_id != null ? { reported_user_id: String(user_id).slice(0, 64) } : {}),
          details,
        },
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
      return { success: true };
    },
  );
}
