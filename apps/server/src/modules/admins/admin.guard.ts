import { MESSAGES, type AdminModule, type PermissionType } from '@securering/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { forbidden, unauthorized } from '../../lib/app-error';
import { requireSession } from '../../plugins/auth';
import { hasAdminPermission } from './admin.policy';

/**
 * preHandler for admin routes: a live admin session of an active admin, and when a module is
 * given, the permission for it. Checked against the database on every call, so a permission
 * change, deactivation or deletion takes effect at once.
 */
export function requireAdmin(ctx: AppContext, module?: AdminModule, type: PermissionType = 'view') {
  return async (request: FastifyRequest): Promise<void> => {
    const session = await requireSession(ctx.sessions, request, 'admin');
    const admin = await ctx.admins.findById(session.subject_id);
    if (!admin || admin.is_active !== 1) throw unauthorized(MESSAGES.sessionExpired);
    if (
      module &&
      !(await hasAdminPermission(admin, { module, type }, (a, m, t) => ctx.admins.isGranted(a, m, t)))
    ) {
      throw forbidden(type === 'view' ? MESSAGES.forbidden : MESSAGES.noEditRight);
    }
    request.caller = { kind: 'admin', session, admin };
  };
}
