import { ADMIN_MODULES, PERMISSION_TYPE_NAMES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import {
  ADMIN_MESSAGES,
  checkManageAdmin,
  checkPermissionsSave,
  checkRoleChange,
  grantKey,
  grantSetOf,
  type AdminRights,
} from './admin.policy';
import type { AdminPermissionRow } from './admin.repository';

const admin = (id: string, grants: string[] = []): AdminRights => ({
  id,
  role: 'admin',
  grants: new Set(grants),
});
const superAdmin = (id: string): AdminRights => ({
  id,
  role: 'super_admin',
  grants: grantSetOf('super_admin', []),
});
const change = (module_name: string, permission_type: string, granted: boolean) => ({
  module_name,
  permission_type,
  granted,
});

const manager = admin('m', ['admin_management:view', 'admin_management:edit', 'plans:view']);

describe('grantSetOf', () => {
  it('holds the granted rows of an admin, every module × type for a super admin', () => {
    const row = (module_name: string, permission_type: string, granted: 0 | 1): AdminPermissionRow => ({
      id: 'x',
      admin_id: 'a',
      module_name,
      permission_type,
      granted,
      updated_at: '',
    });
    expect([...grantSetOf('admin', [row('plans', 'view', 1), row('plans', 'edit', 0)])]).toEqual([
      'plans:view',
    ]);
    expect(grantSetOf('super_admin', []).size).toBe(ADMIN_MODULES.length * PERMISSION_TYPE_NAMES.length);
    expect(grantSetOf('super_admin', []).has(grantKey('backup', 'delete'))).toBe(true);
  });
});

describe('checkRoleChange', () => {
  it('lets only a super admin create or promote a super admin', () => {
    expect(checkRoleChange('admin', null, 'super_admin')).toBe(ADMIN_MESSAGES.onlySuperCreatesSuper);
    expect(checkRoleChange('admin', 'admin', 'super_admin')).toBe(ADMIN_MESSAGES.onlySuperCreatesSuper);
    expect(checkRoleChange('super_admin', null, 'super_admin')).toBeUndefined();
    expect(checkRoleChange('super_admin', 'admin', 'super_admin')).toBeUndefined();
    expect(checkRoleChange('admin', null, 'admin')).toBeUndefined();
    expect(checkRoleChange('admin', 'admin', 'admin')).toBeUndefined();
  });
});

describe('checkManageAdmin', () => {
  it('lets a non-super admin manage only admins whose permissions it holds too', () => {
    expect(checkManageAdmin(manager, admin('t', ['plans:view']))).toBeUndefined();
    expect(checkManageAdmin(manager, admin('t'))).toBeUndefined();
    expect(checkManageAdmin(manager, admin('t', ['plans:view', 'backup:view']))).toBe(
      ADMIN_MESSAGES.onlySuperEditsStronger,
    );
    expect(checkManageAdmin(manager, superAdmin('s'))).toBe(ADMIN_MESSAGES.onlySuperEditsSuper);
  });

  it('lets a super admin manage anyone, and anyone manage its own account', () => {
    expect(checkManageAdmin(superAdmin('s'), admin('t', ['backup:delete']))).toBeUndefined();
    expect(checkManageAdmin(superAdmin('s'), superAdmin('s2'))).toBeUndefined();
    expect(checkManageAdmin(manager, manager)).toBeUndefined();
  });
});

describe('checkPermissionsSave', () => {
  it('never lets an admin change its own permissions, nor a super admin’s', () => {
    expect(checkPermissionsSave(manager, manager, [])).toBe(ADMIN_MESSAGES.notOwnPermissions);
    expect(checkPermissionsSave(superAdmin('s'), superAdmin('s'), [])).toBe(ADMIN_MESSAGES.notOwnPermissions);
    expect(checkPermissionsSave(manager, superAdmin('s'), [])).toBe(ADMIN_MESSAGES.superHasAll);
  });

  it('lets a non-super admin grant and withdraw only what it holds', () => {
    const target = admin('t', ['plans:view']);
    expect(checkPermissionsSave(manager, target, [change('admin_management', 'view', true)])).toBeUndefined();
    expect(checkPermissionsSave(manager, target, [change('plans', 'view', false)])).toBeUndefined();
    for (const [module, type] of [
      ['backup', 'view'],
      ['admin_management', 'delete'],
      ['payment_settings', 'edit'],
    ] as const) {
      expect(checkPermissionsSave(manager, target, [change(module, type, true)]), `${module}:${type}`).toBe(
        ADMIN_MESSAGES.notGrantable,
      );
    }
  });

  it('accepts the whole grid when the entries it lacks are sent unchanged', () => {
    const target = admin('t');
    const grid = ADMIN_MODULES.flatMap((m) =>
      PERMISSION_TYPE_NAMES.map((type) => change(m.name, type, m.name === 'plans' && type === 'view')),
    );
    expect(checkPermissionsSave(manager, target, grid)).toBeUndefined();
    const everything = grid.map((entry) => ({ ...entry, granted: true }));
    expect(checkPermissionsSave(manager, target, everything)).toBe(ADMIN_MESSAGES.notGrantable);
  });

  it('refuses any change on an admin holding permissions the actor lacks', () => {
    const stronger = admin('t', ['plans:view', 'backup:view']);
    expect(checkPermissionsSave(manager, stronger, [change('plans', 'view', false)])).toBe(
      ADMIN_MESSAGES.onlySuperEditsStronger,
    );
  });

  it('lets a super admin grant anything to another admin', () => {
    const everything = ADMIN_MODULES.flatMap((m) =>
      PERMISSION_TYPE_NAMES.map((type) => change(m.name, type, true)),
    );
    expect(checkPermissionsSave(superAdmin('s'), admin('t'), everything)).toBeUndefined();
  });
});
