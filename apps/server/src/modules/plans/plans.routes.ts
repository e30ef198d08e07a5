import type { TPlansResponse } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { AnswerCache, sendPreparedAnswer } from '../../lib/prepared-answer';
import { toPublicPlan } from './plan.policy';
import { PlanRepository } from './plan.repository';
import { PUBLIC_PLANS_TOPIC, PUBLIC_PLANS_TTL_MS } from './public-plans';

export async function planRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const plans = new PlanRepository(ctx.db);
  // The same answer for every visitor, read on every home and /subscribe page: built, serialised and
  // compressed once, until a plan changes on any instance.
  const cache = new AnswerCache(
    async (): Promise<TPlansResponse> => ({ success: true, data: (await plans.findActive()).map(toPublicPlan) }),
    PUBLIC_PLANS_TTL_MS,
  );
  ctx.realtime.onInvalidate(PUBLIC_PLANS_TOPIC, () => cache.invalidate());

  // Public: the home page and /subscribe list active plans only.
  app.get('/api/subscriptions/plans.php', async (request, reply) =>
    sendPreparedAnswer(request, reply, await cache.get()),
  );
}
