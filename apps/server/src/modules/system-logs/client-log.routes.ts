import { ZClientLogRequest } from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { badRequest } from '../../lib/app-error';
import { cookieToken, extractBearer, hasCsrfProof, requestMeta } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { ipRateLimit } from '../../plugins/rate-limit';
import { placeClientLog, type ClientLogAuthor } from './client-log.policy';

const CLIENT_LOGS_PER_MINUTE = 120;
const SESSION_AUDIENCES = ['customer', 'ring', 'admin'] as const;

export async function clientLogRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  await root.register(async (app) => clientLogRoute(app, ctx));
}

async function clientLogRoute(app: FastifyInstance, ctx: AppContext): Promise<void> {
  /**
   * The live session behind the bearer, or behind a session cookie whose CSRF token the report
   * repeats (a report another site makes the browser send stays anonymous), of any audience; a
   * missing or dead one is anonymous.
   */
  async function authorOf(
    request: FastifyRequest,
  ): Promise<{ audience: NonNullable<ClientLogAuthor>; subjectId: string } | undefined> {
    const bearer = extractBearer(request);
    if (!bearer) {
      for (const audience of SESSION_AUDIENCES) {
        const token = cookieToken(request, audience);
        if (!token || !hasCsrfProof(request, token)) continue;
        const session = await ctx.sessions.verify(audience, token);
        return session ? { audience, subjectId: session.subject_id } : undefined;
      }
      return undefined;
    }
    const token = bearer;
    for (const audience of SESSION_AUDIENCES) {
      const session = await ctx.sessions.verify(audience, token);
      if (session) return { audience, subjectId: session.subject_id };
    }
    return undefined;
  }

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
    {
      bodyLimit: BODY_LIMITS.form,
      preHandler: ipRateLimit(ctx.rateLimiter, 'client-log', CLIENT_LOGS_PER_MINUTE),
    },
    async (request) => {
      const parsed = ZClientLogRequest.safeParse(request.body ?? {});
      if (!parsed.success) throw badRequest('Entrée de journal invalide');
      const { level, category, message, details, user_id } = parsed.data;
      const meta = requestMeta(request);
      // Identity comes from the session only; level and category are capped by who is asking.
      const author = await authorOf(request);
      const placed = placeClientLog({ level, category }, author?.audience);
      await ctx.systemLog.write({
        ...placed,
        message,
        userId: author?.subjectId ?? null,
        // The reported user id, level and category are the client's claims, kept for reading only.
        details: {
          source: 'client',
          ...(author ? { audience: author.audience } : {}),
          ...(user_id != null ? { reported_user_id: String(user_id).slice(0, 64) } : {}),
          ...(placed.level !== level ? { reported_level: level } : {}),
          ...(placed.category !== category ? { reported_category: category } : {}),
          details,
        },
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
      return { success: true };
    },
  );
}
