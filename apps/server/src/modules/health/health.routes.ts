import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';

export async function healthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // 200 only when the database answers; load balancers take the instance out otherwise.
  app.get('/healthz', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    try {
      await ctx.database.ping();
      if (ctx.redis && ctx.redis.status !== 'ready') throw new Error(`redis ${ctx.redis.status}`);
      return { status: 'ok' as const };
    } catch (error) {
      ctx.logger.warn({ err: error }, 'health check failed');
      return reply.status(503).send({ status: 'error' });
    }
  });
}
