import {
  ZAdminPermissionsQuery,
  ZCreateAdminRequest,
  ZDeleteAdminRequest,
  ZSaveAdminPermissionsRequest,
  ZUpdateAdminRequest,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { forbidden, parseInput } from '../../lib/app-error';
import { assertNotCommonPassword } from '../../lib/common-passwords';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin } from './admin.guard';
import { adminMay } from './admin.policy';
import { ADMIN_MESSAGES, AdminUsersService } from './admin-users.service';

export async function adminUsersRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminUsersService(ctx);

  // Any admin may read its own permissions (the console needs them to show its tabs).
  app.get('/api/admin/permissions.php', { preHandler: requireAdmin(ctx) }, async (request) => {
    const { admin_id } = parseInput(ZAdminPermissionsQuery, request.query);
    const { admin } = adminCaller(request);
    if (admin_id !== admin.id && !(await adminMay(ctx.admins, admin, 'admin_management', 'view'))) {
      throw forbidden();
    }
    return { success: true, admin_id, permissions: await service.permissions(admin_id) };
  });

  app.put(
    '/api/admin/permissions.php',
    { preHandler: requireAdmin(ctx, 'admin_management', 'edit') },
    async (request) => {
      await service.savePermissions(
        adminCaller(request).admin,
        parseInput(ZSaveAdminPermissionsRequest, request.body),
        requestMeta(request),
      );
      return { success: true, message: ADMIN_MESSAGES.permissionsSaved };
    },
  );

  app.get('/api/admin/users.php', { preHandler: requireAdmin(ctx, 'admin_management', 'view') }, async () => {
    return { success: true, admins: await service.list() };
  });

  app.post(
    '/api/admin/users.php',
    { preHandler: requireAdmin(ctx, 'admin_management', 'create') },
    async (request) => {
      const input = parseInput(ZCreateAdminRequest, request.body);
      assertNotCommonPassword(input.password);
      const admin = await service.create(adminCaller(request).admin, input, requestMeta(request));
      return { success: true, admin, message: ADMIN_MESSAGES.created };
    },
  );

  app.put(
    '/api/admin/users.php',
    { preHandler: requireAdmin(ctx, 'admin_management', 'edit') },
    async (request) => {
      const caller = adminCaller(request);
      const input = parseInput(ZUpdateAdminRequest, request.body);
      assertNotCommonPassword(input.password);
      const admin = await service.update(caller.admin, input, requestMeta(request), caller.session.id);
      return { success: true, admin, message: ADMIN_MESSAGES.updated };
    },
  );

  app.delete(
    '/api/admin/users.php',
    { preHandler: requireAdmin(ctx, 'admin_management', 'delete') },
    async (request) => {
      const { id } = parseInput(ZDeleteAdminRequest, request.body);
      await service.remove(adminCaller(request).admin, id, requestMeta(request));
      return { success: true, message: ADMIN_MESSAGES.deleted };
    },
  );
}
