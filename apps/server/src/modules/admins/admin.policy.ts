import {
  ADMIN_MODULES,
  PERMISSION_TYPE_NAMES,
  type AdminModule,
  type AdminRole,
  type PermissionType,
  type TAdminPublic,
} from '@securering/contract';
import type { AdminPermissionRow, AdminRepository, AdminRow } from './admin.repository';

export const ADMIN_MESSAGES = {
  notFound: 'Administrateur introuvable',
  usernameTaken: 'Ce nom d’utilisateur est déjà utilisé',
  onlySuperCreatesSuper: 'Seul un super administrateur peut créer ou promouvoir un super administrateur',
  onlySuperEditsSuper: 'Seul un super administrateur peut modifier un super administrateur',
  onlySuperEditsStronger:
    'Seul un super administrateur peut modifier ou supprimer un administrateur qui a des permissions que vous n’avez pas',
  notGrantable: 'Vous ne pouvez accorder ou retirer que des permissions que vous détenez vous-même',
  notSelfDelete: 'Vous ne pouvez pas supprimer votre propre compte',
  notSelfDeactivate: 'Vous ne pouvez pas désactiver votre propre compte',
  notSelfDemote: 'Vous ne pouvez pas retirer votre propre rôle de super administrateur',
  notOwnPermissions: 'Vous ne pouvez pas modifier vos propres permissions',
  superHasAll: 'Un super administrateur a déjà toutes les permissions',
  lastSuper: 'Le dernier super administrateur ne peut pas être supprimé ni rétrogradé',
  created: 'Administrateur créé',
  updated: 'Administrateur modifié',
  deleted: 'Administrateur supprimé',
  permissionsSaved: 'Permissions mises à jour',
} as const;

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

/** "module:type" — one granted permission. */
export const grantKey = (module: string, type: string): string => `${module}:${type}`;

/** Every module × type, as a super admin holds them. */
const EVERY_GRANT: ReadonlySet<string> = new Set(
  ADMIN_MODULES.flatMap((m) => PERMISSION_TYPE_NAMES.map((t) => grantKey(m.name, t))),
);

/** The permissions an admin holds, as grant keys: all of them for a super admin. */
export function grantSetOf(role: AdminRole, rows: readonly AdminPermissionRow[]): ReadonlySet<string> {
  if (role === 'super_admin') return EVERY_GRANT;
  return new Set(rows.filter((r) => r.granted === 1).map((r) => grantKey(r.module_name, r.permission_type)));
}

/** An admin as the account rules see it: who, which role, which permissions. */
export interface AdminRights {
  id: string;
  role: AdminRole;
  grants: ReadonlySet<string>;
}

export interface PermissionChange {
  module_name: string;
  permission_type: string;
  granted: boolean;
}

/**
 * Whether `actor` may create an account with `requested` role, or give it to an existing one
 * (`current`): a super admin only ever comes from a super admin. Returns the French refusal.
 */
export function checkRoleChange(
  actorRole: AdminRole,
  current: AdminRole | null,
  requested: AdminRole,
): string | undefined {
  if (requested === 'super_admin' && current !== 'super_admin' && actorRole !== 'super_admin')
    return ADMIN_MESSAGES.onlySuperCreatesSuper;
  return undefined;
}

/**
 * Whether `actor` may edit or delete the account `target`. A non-super admin manages neither a
 * super admin nor an admin holding a permission it lacks itself: a new password would hand it
 * that permission. Returns the French refusal.
 */
export function checkManageAdmin(actor: AdminRights, target: AdminRights): string | undefined {
  if (actor.role === 'super_admin' || actor.id === target.id) return undefined;
  if (target.role === 'super_admin') return ADMIN_MESSAGES.onlySuperEditsSuper;
  for (const grant of target.grants)
    if (!actor.grants.has(grant)) return ADMIN_MESSAGES.onlySuperEditsStronger;
  return undefined;
}

/**
 * Whether `actor` may save `changes` to the permissions of `target`. Never its own; a super admin
 * already holds everything; and a non-super admin only grants or withdraws permissions it holds
 * itself (an entry it lacks may be sent only unchanged, as the console sends the whole grid), and
 * only on an admin it may manage. Returns the French refusal.
 */
export function checkPermissionsSave(
  actor: AdminRights,
  target: AdminRights,
  changes: readonly PermissionChange[],
): string | undefined {
  if (actor.id === target.id) return ADMIN_MESSAGES.notOwnPermissions;
  if (target.role === 'super_admin') return ADMIN_MESSAGES.superHasAll;
  if (actor.role === 'super_admin') return undefined;
  const manage = checkManageAdmin(actor, target);
  if (manage) return manage;
  for (const change of changes) {
    const key = grantKey(change.module_name, change.permission_type);
    if (change.granted !== target.grants.has(key) && !actor.grants.has(key))
      return ADMIN_MESSAGES.notGrantable;
  }
  return undefined;
}
