import {
  ADMIN_PLAN_MESSAGES,
  ZDeleteAdminPlanRequest,
  ZOrderAdminPlansRequest,
  ZSaveAdminPlanRequest,
  type TAdminPlansResponse,
  type TSaveAdminPlanResponse,
} from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { AppError, parseInput } from '../../lib/app-error';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin, type RequiredPermission } from '../admins/admin.guard';
import { AdminPlansService } from './admin-plans.service';

/** The old console reads plan errors from `message`: every error here carries it beside `error`. */
async function withMessage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError && error.extra.message === undefined) {
      throw new AppError(error.statusCode, error.message, { ...error.extra, message: error.message });
    }
    throw error;
  }
}

const hasId = (body: unknown): boolean => {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.trim() !== '';
};

export async function adminPlansRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminPlansService(ctx);
  const guard = (type: RequiredPermission) => {
    const check = requireAdmin(ctx, 'plans', type);
    return async (request: FastifyRequest) => withMessage(() => check(request));
  };

  const list = async (): Promise<TAdminPlansResponse> => ({ success: true, data: await service.list() });
  app.get('/api/admin/plans', { preHandler: guard('view') }, list);
  app.get('/api/admin/plans.php', { preHandler: guard('view') }, list);

  // POST creates; a POST carrying an id (older clients) edits and needs the edit right.
  app.post(
    '/api/admin/plans.php',
    { preHandler: guard((request) => (hasId(request.body) ? 'edit' : 'create')) },
    async (request): Promise<TSaveAdminPlanResponse> =>
      withMessage(async () => {
        const input = parseInput(ZSaveAdminPlanRequest, request.body);
        const { admin } = adminCaller(request);
        if (input.id) {
          const data = await service.update(admin, input.id, input, requestMeta(request));
          return { success: true, message: ADMIN_PLAN_MESSAGES.saved, data };
        }
        const data = await service.create(admin, input, requestMeta(request));
        return { success: true, message: ADMIN_PLAN_MESSAGES.created, data };
      }),
  );

  app.put(
    '/api/admin/plans.php',
    { preHandler: guard('edit') },
    async (request): Promise<TSaveAdminPlanResponse> =>
      withMessage(async () => {
        const input = parseInput(ZSaveAdminPlanRequest, request.body);
        if (!input.id) throw new AppError(400, ADMIN_PLAN_MESSAGES.idRequired);
        const data = await service.update(adminCaller(request).admin, input.id, input, requestMeta(request));
        return { success: true, message: ADMIN_PLAN_MESSAGES.saved, data };
      }),
  );

  // The back office's ▲ / ▼ on the plan cards: the order the public list and /subscribe follow.
  app.post('/api/admin/plans-order.php', { preHandler: guard('edit') }, async (request) =>
    withMessage(async () => {
      const { ids } = parseInput(ZOrderAdminPlansRequest, request.body);
      const data = await service.order(adminCaller(request).admin, ids, requestMeta(request));
      return { success: true, message: ADMIN_PLAN_MESSAGES.ordered, data };
    }),
  );

  app.delete('/api/admin/plans.php', { preHandler: guard('delete') }, async (request) =>
    withMessage(async () => {
      const query = request.query as { id?: unknown } | undefined;
      const body = request.body as { id?: unknown } | undefined;
      const { id } = parseInput(ZDeleteAdminPlanRequest, { id: query?.id ?? body?.id });
      await service.remove(adminCaller(request).admin, id, requestMeta(request));
      return { success: true, message: ADMIN_PLAN_MESSAGES.deleted };
    }),
  );
}
