import { MESSAGES, type AdminModule, type PermissionType } from '@securering/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { forbidden, unauthorized } from '../../lib/app-error';
import { requireSession } from '../../plugins/auth';
import { adminMay } from './admin.policy';

/** The permission a route needs: fixed, or read from the request (e.g. the action of a POST). */
export type RequiredPermission = PermissionType | ((request: FastifyRequest) => PermissionType);

/**
 * preHandler for admin routes: a live admin session of an active admin, and when a module is
 * given, the permission for it. Checked against the database on every call, so a permission
 * change, deactivation or deletion takes effect at once. The token is checked before the
 * permission, and both before the route reads its input.
 */
export function requireAdmin(ctx: AppContext, module?: AdminModule, type: RequiredPermission = 'view') {
  return async (request: FastifyRequest): Promise<void> => {
    const session = await requireSession(ctx.sessions, request, 'admin');
    const admin = await ctx.admins.findById(session.subject_id);
    if (!admin || admin.is_active !== 1) throw unauthorized(MESSAGES.sessionExpired);
    if (module) {
      const needed = typeof type === 'function' ? type(request) : type;
      if (!(await adminMay(ctx.admins, admin, module, needed))) {
        throw forbidden(needed === 'view' ? MESSAGES.forbidden : MESSAGES.noEditRight);
      }
    }
    request.caller = { kind: 'admin', session, admin };
  };
}
