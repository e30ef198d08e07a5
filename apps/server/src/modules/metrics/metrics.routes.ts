import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { notFound, unauthorized } from '../../lib/app-error';

/** The metrics path (Prometheus' default). Not under /api/: it is not part of the public contract. */
export const METRICS_PATH = '/metrics';

/** Whether `header` is "Bearer <token>" for exactly this token, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * `GET /metrics`: the instance's Prometheus metrics, only with `Authorization: Bearer
 * $METRICS_TOKEN`. Without METRICS_TOKEN the endpoint does not exist (404): an operator turns it
 * on by choosing a token, and the public port never shows it to anyone else.
 */
export async function metricsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(METRICS_PATH, async (request, reply) => {
    const token = ctx.config.metricsToken;
    if (!token) throw notFound();
    if (!bearerMatches(request.headers.authorization, token))
      throw unauthorized('Jeton de métriques absent ou invalide');
    const { contentType, body } = await ctx.operatorMetrics.exposition();
    return reply.header('Content-Type', contentType).header('Cache-Control', 'no-store').send(body);
  });
}
