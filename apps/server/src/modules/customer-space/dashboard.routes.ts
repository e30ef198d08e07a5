import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { customerCaller } from '../../plugins/auth';
import { requireCustomer } from '../customers/customer.guard';
import { DashboardService } from './dashboard.service';

const ZDashboardQuery = z.object({ ring_id: z.string().max(64).optional() });

export async function dashboardRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new DashboardService(ctx);
  app.get('/api/customer/dashboard-data.php', { preHandler: requireCustomer(ctx) }, async (request) => {
    const { ring_id } = parseInput(ZDashboardQuery, request.query);
    return { success: true, data: await service.dashboard(customerCaller(request).customer, ring_id) };
  });
}
