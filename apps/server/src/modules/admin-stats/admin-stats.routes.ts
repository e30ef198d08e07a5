import type { ZAdminStatsResponse } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { requireAdmin } from '../admins/admin.guard';
import { AdminStatsService } from './admin-stats.service';

/** GET /api/admin/stats.php: every signed-in admin may read it (the console cards need it). */
export async function adminStatsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminStatsService(ctx);

  app.get(
    '/api/admin/stats.php',
    { preHandler: requireAdmin(ctx) },
    async (): Promise<z.infer<typeof ZAdminStatsResponse>> => ({
      success: true,
      data: await service.stats(),
    }),
  );
}
