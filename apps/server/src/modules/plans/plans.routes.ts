import type { TPlansResponse } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { toPublicPlan } from './plan.policy';
import { PlanRepository } from './plan.repository';

export async function planRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const plans = new PlanRepository(ctx.db);

  // Public: the home page and /subscribe list active plans only.
  app.get('/api/subscriptions/plans.php', async (): Promise<TPlansResponse> => {
    return { success: true, data: (await plans.findActive()).map(toPublicPlan) };
  });
}
