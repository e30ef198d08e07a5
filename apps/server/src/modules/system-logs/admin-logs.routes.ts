import { LOG_MESSAGES, ZAdminLogsAction, ZAdminLogsQuery, type PermissionType } from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { badRequest, parseInput } from '../../lib/app-error';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin } from '../admins/admin.guard';
import { AdminLogsService } from './admin-logs.service';

/** The permission each POST action needs on system_logs. */
const ACTION_PERMISSION: Record<string, PermissionType> = {
  toggle_logging: 'edit',
  clear_logs: 'delete',
  purge_old: 'delete',
};

/** The permission the POST's action needs, undefined for an unknown action. */
function actionPermission(request: FastifyRequest): PermissionType | undefined {
  const rawAction = (request.body as { action?: unknown } | null | undefined)?.action;
  // hasOwn: a name such as "constructor" must not resolve to an Object.prototype member.
  return typeof rawAction === 'string' && Object.hasOwn(ACTION_PERMISSION, rawAction)
    ? ACTION_PERMISSION[rawAction]
    : undefined;
}

/** GET/POST /api/admin/logs.php — the Logs tab (spec 3 §2.13, §7 Logs). */
export async function adminLogsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminLogsService(ctx);

  app.get(
    '/api/admin/logs.php',
    { preHandler: requireAdmin(ctx, 'system_logs', 'view') },
    async (request) => {
      const query = parseInput(ZAdminLogsQuery, request.query);
      return { success: true, ...(await service.list(query)) };
    },
  );

  // The permission depends on the action: the token is checked first, then the action's right,
  // then the input, so a caller without the right learns nothing about the input rules.
  // An unknown action changes nothing; it is still only answered to admins of the module.
  app.post(
    '/api/admin/logs.php',
    { preHandler: requireAdmin(ctx, 'system_logs', (request) => actionPermission(request) ?? 'view') },
    async (request) => {
      if (!actionPermission(request)) throw badRequest(LOG_MESSAGES.unknownAction);
      const input = parseInput(ZAdminLogsAction, request.body);
      const { admin } = adminCaller(request);
      const meta = requestMeta(request);
      switch (input.action) {
        case 'toggle_logging': {
          const message = await service.setLogging(admin, input.enabled, meta);
          return { success: true, message, logging_enabled: input.enabled };
        }
        case 'clear_logs':
          return { success: true, ...(await service.clear(admin, input, meta)) };
        case 'purge_old':
          return { success: true, ...(await service.purge(admin, input.days, meta)) };
      }
    },
  );
}
