import type { AdminModule, PermissionType, TAdminPublic } from '@securering/contract';
import type { AdminRow } from './admin.repository';

/** The admin as any call may show it: never the password hash. */
export function toAdminPublic(admin: AdminRow): TAdminPublic {
  return {
    id: admin.id,
    username: admin.username,
    email: admin.email,
    role: admin.role,
    is_active: admin.is_active === 1,
    last_login: admin.last_login,
  };
}

export interface PermissionCheck {
  module: AdminModule;
  type: PermissionType;
}

/** super_admin holds every permission; others hold what the database grants. */
export async function hasAdminPermission(
  admin: AdminRow,
  check: PermissionCheck,
  isGranted: (adminId: string, module: string, type: string) => Promise<boolean>,
): Promise<boolean> {
  if (admin.role === 'super_admin') return true;
  return isGranted(admin.id, check.module, check.type);
}
