import {
  permissionGrid,
  type TAdminPublic,
  type TPermissionEntry,
  type ZCreateAdminRequest,
  type ZSaveAdminPermissionsRequest,
  type ZUpdateAdminRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { isUniqueViolation } from '../../db/database';
import { badRequest, conflict, forbidden, notFound } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import { hashPassword } from '../../lib/passwords';
import type { RequestMeta } from '../sessions/session.service';
import {
  ADMIN_MESSAGES,
  checkManageAdmin,
  checkPermissionsSave,
  checkRoleChange,
  grantSetOf,
  toAdminPublic,
  type AdminRights,
} from './admin.policy';
import type { AdminRow } from './admin.repository';

export { ADMIN_MESSAGES } from './admin.policy';

/** Admin accounts and their permissions, with the rules that stop an admin from raising itself. */
export class AdminUsersService {
  constructor(private readonly ctx: AppContext) {}

  private async target(id: string): Promise<AdminRow> {
    const admin = await this.ctx.admins.findById(id);
    if (!admin) throw notFound(ADMIN_MESSAGES.notFound);
    return admin;
  }

  /** The admin with the permissions it holds now (read from the database). */
  private async rightsOf(admin: AdminRow): Promise<AdminRights> {
    const rows = admin.role === 'super_admin' ? [] : await this.ctx.admins.findPermissions(admin.id);
    return { id: admin.id, role: admin.role, grants: grantSetOf(admin.role, rows) };
  }

  private async assertMayManage(actor: AdminRow, target: AdminRow): Promise<void> {
    if (actor.role === 'super_admin') return;
    const refusal = checkManageAdmin(await this.rightsOf(actor), await this.rightsOf(target));
    if (refusal) throw forbidden(refusal);
  }

  private async countSupers(): Promise<number> {
    return (await this.ctx.admins.findAll()).filter((a) => a.role === 'super_admin' && a.is_active === 1)
      .length;
  }

  async list(): Promise<TAdminPublic[]> {
    return (await this.ctx.admins.findAll()).map(toAdminPublic);
  }

  async permissions(targetId: string): Promise<TPermissionEntry[]> {
    const admin = await this.target(targetId);
    if (admin.role === 'super_admin') return permissionGrid(() => true);
    const rows = await this.ctx.admins.findPermissions(admin.id);
    const granted = new Set(
      rows.filter((r) => r.granted === 1).map((r) => `${r.module_name}:${r.permission_type}`),
    );
    return permissionGrid((module, type) => granted.has(`${module}:${type}`));
  }

  async savePermissions(
    actor: AdminRow,
    input: z.output<typeof ZSaveAdminPermissionsRequest>,
    meta: RequestMeta,
  ): Promise<void> {
    if (input.admin_id === actor.id) throw forbidden(ADMIN_MESSAGES.notOwnPermissions);
    const target = await this.target(input.admin_id);
    if (target.role === 'super_admin') throw badRequest(ADMIN_MESSAGES.superHasAll);
    const refusal = checkPermissionsSave(
      await this.rightsOf(actor),
      await this.rightsOf(target),
      input.permissions,
    );
    if (refusal) throw forbidden(refusal);
    const nowIso = this.ctx.clock.now().toISOString();
    await this.ctx.admins.upsertPermissions(
      input.permissions.map((p) => ({
        id: newId(),
        admin_id: target.id,
        module_name: p.module_name,
        permission_type: p.permission_type,
        granted: p.granted ? 1 : 0,
        updated_at: nowIso,
      })),
    );
    await this.ctx.systemLog.adminAction(actor, meta, 'Permissions d’un administrateur modifiées', {
      admin_id: target.id,
      granted: input.permissions.filter((p) => p.granted).map((p) => `${p.module_name}:${p.permission_type}`),
    });
  }

  async create(
    actor: AdminRow,
    input: z.output<typeof ZCreateAdminRequest>,
    meta: RequestMeta,
  ): Promise<TAdminPublic> {
    // A new account starts with no permission (the request carries none): an admin grants them
    // afterwards, within its own, through savePermissions.
    const roleRefusal = checkRoleChange(actor.role, null, input.role);
    if (roleRefusal) throw forbidden(roleRefusal);
    const nowIso = this.ctx.clock.now().toISOString();
    const admin: AdminRow = {
      id: newId(),
      username: input.username,
      email: input.email,
      password_hash: await hashPassword(input.password),
      role: input.role,
      is_active: input.is_active === false ? 0 : 1,
      last_login: null,
      created_at: nowIso,
      updated_at: nowIso,
    };
    try {
      await this.ctx.admins.insert(admin);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(ADMIN_MESSAGES.usernameTaken);
      throw error;
    }
    await this.ctx.systemLog.adminAction(actor, meta, 'Administrateur créé', {
      admin_id: admin.id,
      username: admin.username,
      role: admin.role,
    });
    return toAdminPublic(admin);
  }

  async update(
    actor: AdminRow,
    input: z.output<typeof ZUpdateAdminRequest>,
    meta: RequestMeta,
    /** The session the request came with, kept when an admin changes its own password. */
    currentSessionId?: string,
  ): Promise<TAdminPublic> {
    const target = await this.target(input.id);
    const self = target.id === actor.id;
    await this.assertMayManage(actor, target);
    const roleRefusal = checkRoleChange(actor.role, target.role, input.role);
    if (roleRefusal) throw forbidden(roleRefusal);
    if (self && input.is_active === false) throw forbidden(ADMIN_MESSAGES.notSelfDeactivate);
    if (self && target.role === 'super_admin' && input.role !== 'super_admin')
      throw forbidden(ADMIN_MESSAGES.notSelfDemote);
    const demotingOrDeactivatingSuper =
      target.role === 'super_admin' && (input.role !== 'super_admin' || input.is_active === false);
    if (demotingOrDeactivatingSuper && (await this.countSupers()) <= 1)
      throw forbidden(ADMIN_MESSAGES.lastSuper);

    const changes: Partial<AdminRow> = {
      username: input.username,
      email: input.email,
      role: input.role,
      updated_at: this.ctx.clock.now().toISOString(),
      ...(input.is_active === undefined ? {} : { is_active: input.is_active ? 1 : 0 }),
      ...(input.password ? { password_hash: await hashPassword(input.password) } : {}),
    };
    try {
      await this.ctx.admins.update(target.id, changes);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(ADMIN_MESSAGES.usernameTaken);
      throw error;
    }
    // A new password or a deactivation ends the other admin's open sessions at once; an admin
    // changing its own password keeps only the session it did it with.
    if (!self && (input.password || input.is_active === false))
      await this.ctx.sessions.revokeAllFor('admin', target.id);
    if (self && input.password) {
      if (currentSessionId) await this.ctx.sessions.revokeOthers('admin', target.id, currentSessionId);
      else await this.ctx.sessions.revokeAllFor('admin', target.id);
    }
    await this.ctx.systemLog.adminAction(actor, meta, 'Administrateur modifié', {
      admin_id: target.id,
      fields: Object.keys(changes).filter((k) => k !== 'password_hash' && k !== 'updated_at'),
      password_changed: Boolean(input.password),
    });
    return toAdminPublic({ ...target, ...changes } as AdminRow);
  }

  async remove(actor: AdminRow, id: string, meta: RequestMeta): Promise<void> {
    if (id === actor.id) throw forbidden(ADMIN_MESSAGES.notSelfDelete);
    const target = await this.target(id);
    await this.assertMayManage(actor, target);
    if (target.role === 'super_admin' && (await this.countSupers()) <= 1)
      throw forbidden(ADMIN_MESSAGES.lastSuper);
    await this.ctx.sessions.revokeAllFor('admin', target.id);
    await this.ctx.admins.delete(target.id);
    await this.ctx.systemLog.adminAction(actor, meta, 'Administrateur supprimé', {
      admin_id: target.id,
      username: target.username,
    });
  }
}
