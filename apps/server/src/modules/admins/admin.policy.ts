import type { AdminModule, PermissionType, TAdminPublic } from '@securering/contract';
import type { AdminRepository, AdminRow } from './admin.repository';

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

/** Whether the admin holds `type` on `module`: one query, none for a super_admin. */
export function adminMay(
  admins: Pick<AdminRepository, 'isGranted'>,
  admin: AdminRow,
  module: AdminModule,
  type: PermissionType,
): Promise<boolean> {
  return hasAdminPermission(admin, { module, type }, (a, m, t) => admins.isGranted(a, m, t));
}

/**
 * The admin's rights read once, for a call that checks several modules: the returned check
 * answers as adminMay would, without a query per check (and without any for a super_admin).
 */
export async function adminGrants(
  admins: Pick<AdminRepository, 'findPermissions'>,
  admin: AdminRow,
): Promise<(module: AdminModule, type: PermissionType) => Promise<boolean>> {
  const rows = admin.role === 'super_admin' ? [] : await admins.findPermissions(admin.id);
  const granted = new Set(
    rows.filter((r) => r.granted === 1).map((r) => `${r.module_name}\u0000${r.permission_type}`),
  );
  return (module, type) =>
    hasAdminPermission(admin, { module, type }, async (_adminId, m, t) => granted.has(`${m}\u0000${t}`));
}
