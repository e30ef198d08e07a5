import {
  REALTIME_MESSAGES,
  ZRealtimeRestartRequest,
  type TRealtimeRestartResponse,
  type TRealtimeStatusResponse,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin } from '../admins/admin.guard';
import { AdminRealtimeService } from './admin-realtime.service';

/** Realtime service status (site_settings view) and restart (super admin only). */
export async function adminRealtimeRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminRealtimeService(ctx);

  app.get(
    '/api/admin/realtime-status.php',
    { preHandler: requireAdmin(ctx, 'site_settings', 'view') },
    async (request): Promise<TRealtimeStatusResponse> => {
      service.checkTimestamp(request.headers['x-timestamp']);
      return service.status();
    },
  );

  app.post(
    '/api/admin/realtime-restart.php',
    { preHandler: requireAdmin(ctx) },
    async (request): Promise<TRealtimeRestartResponse> => {
      const { admin } = adminCaller(request);
      service.assertMayRestart(admin);
      service.checkTimestamp(request.headers['x-timestamp']);
      const input = parseInput(ZRealtimeRestartRequest, request.body);
      await service.restart(admin, input, requestMeta(request));
      return { success: true, message: REALTIME_MESSAGES.restartRequested };
    },
  );
}
