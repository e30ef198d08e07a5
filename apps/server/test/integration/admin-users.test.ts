import { ZAdminPermissionsResponse, ZAdminsListResponse } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_MESSAGES } from '../../src/modules/admins/admin-users.service';
import { TEST_ADMIN, buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin } from '../factories';

describe('admin accounts and permissions', () => {
  let t: TestApp;
  let rootId: string;
  let root: Record<string, string>;
  let manager: Record<string, string>;
  let managerId: string;

  beforeAll(async () => {
    t = await buildTestApp();
    rootId = (await t.ctx.admins.findByUsername(TEST_ADMIN.username))!.id;
    root = bearer(await adminToken(t.ctx, rootId));
    const m = await buildAdmin(t.ctx, {
      username: 'manager',
      permissions: [
        ['admin_management', 'view'],
        ['admin_management', 'create'],
        ['admin_management', 'edit'],
        ['admin_management', 'delete'],
      ],
    });
    managerId = m.id;
    manager = bearer(await adminToken(t.ctx, m.id));
  });
  afterAll(() => t.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  it('lists admins without password hashes, for admins with the module only', async () => {
    const list = await call('GET', '/api/admin/users.php', manager);
    const body = ZAdminsListResponse.parse(list.json());
    expect(body.admins.map((a) => a.username)).toEqual(expect.arrayContaining(['root', 'manager']));
    expect(list.body).not.toContain('argon2');
    const other = await buildAdmin(t.ctx, { permissions: [['plans', 'view']] });
    expect(
      (await call('GET', '/api/admin/users.php', bearer(await adminToken(t.ctx, other.id)))).statusCode,
    ).toBe(403);
    expect((await call('GET', '/api/admin/users.php', {})).statusCode).toBe(401);
  });

  it('creates an admin, refuses duplicates and super admins created by a non-super admin', async () => {
    const created = await call('POST', '/api/admin/users.php', manager, {
      username: 'plans.only',
      email: 'Plans@Example.com',
      password: 'Plans-Pass-1',
      role: 'admin',
    });
    expect(created.statusCode).toBe(200);
    expect(created.json().admin).toMatchObject({
      username: 'plans.only',
      email: 'plans@example.com',
      role: 'admin',
      is_active: true,
    });
    const dup = await call('POST', '/api/admin/users.php', manager, {
      username: 'plans.only',
      email: 'x@example.com',
      password: 'Plans-Pass-1',
      role: 'admin',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe(ADMIN_MESSAGES.usernameTaken);
    const superByManager = await call('POST', '/api/admin/users.php', manager, {
      username: 'boss',
      email: 'b@example.com',
      password: 'Boss-Pass-1',
      role: 'super_admin',
    });
    expect(superByManager.statusCode).toBe(403);
    expect(superByManager.json().error).toBe(ADMIN_MESSAGES.onlySuperCreatesSuper);
    const superByRoot = await call('POST', '/api/admin/users.php', root, {
      username: 'boss',
      email: 'b@example.com',
      password: 'Boss-Pass-1',
      role: 'super_admin',
    });
    expect(superByRoot.statusCode).toBe(200);
    const weak = await call('POST', '/api/admin/users.php', root, {
      username: 'w',
      email: 'w@example.com',
      password: 'short',
      role: 'admin',
    });
    expect(weak.statusCode).toBe(400);
  });

  it('grants module permissions that take effect at once, and never lets an admin change its own', async () => {
    const target = await buildAdmin(t.ctx, { username: 'newbie' });
    const token = bearer(await adminToken(t.ctx, target.id));
    expect((await call('GET', '/api/admin/users.php', token)).statusCode).toBe(403);
    const own = ZAdminPermissionsResponse.parse(
      (await call('GET', `/api/admin/permissions.php?admin_id=${target.id}`, token)).json(),
    );
    expect(own.permissions.every((m) => m.permissions.every((p) => !p.granted))).toBe(true);
    expect((await call('GET', `/api/admin/permissions.php?admin_id=${managerId}`, token)).statusCode).toBe(
      403,
    );

    const save = await call('PUT', '/api/admin/permissions.php', manager, {
      admin_id: target.id,
      permissions: [{ module_name: 'admin_management', permission_type: 'view', granted: true }],
    });
    expect(save.json()).toEqual({ success: true, message: 'Permissions mises à jour' });
    expect((await call('GET', '/api/admin/users.php', token)).statusCode).toBe(200);

    const self = await call('PUT', '/api/admin/permissions.php', manager, {
      admin_id: managerId,
      permissions: [{ module_name: 'backup', permission_type: 'delete', granted: true }],
    });
    expect(self.statusCode).toBe(403);
    expect(self.json().error).toBe(ADMIN_MESSAGES.notOwnPermissions);
    const unknown = await call('PUT', '/api/admin/permissions.php', manager, {
      admin_id: target.id,
      permissions: [{ module_name: 'nope', permission_type: 'view', granted: true }],
    });
    expect(unknown.statusCode).toBe(400);

    await call('PUT', '/api/admin/permissions.php', manager, {
      admin_id: target.id,
      permissions: [{ module_name: 'admin_management', permission_type: 'view', granted: false }],
    });
    expect((await call('GET', '/api/admin/users.php', token)).statusCode).toBe(403);
    const superPerms = ZAdminPermissionsResponse.parse(
      (await call('GET', `/api/admin/permissions.php?admin_id=${rootId}`, root)).json(),
    );
    expect(superPerms.permissions.every((m) => m.permissions.every((p) => p.granted))).toBe(true);
  });

  it('edits with a blank password meaning unchanged, and a new password or deactivation ends the sessions', async () => {
    const target = await buildAdmin(t.ctx, {
      username: 'editme',
      password: 'Edit-Pass-1',
      permissions: [['plans', 'view']],
    });
    const token = bearer(await adminToken(t.ctx, target.id));
    const base = { id: target.id, username: 'editme', email: 'edit@example.com', role: 'admin' };
    expect((await call('PUT', '/api/admin/users.php', manager, { ...base, password: '' })).statusCode).toBe(
      200,
    );
    const login = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/admin/auth/login.php',
        payload: { username: 'editme', password },
      });
    expect((await login('Edit-Pass-1')).statusCode).toBe(200);
    expect((await call('GET', '/api/admin/settings.php', token)).statusCode).toBe(200);
    expect(
      (await call('PUT', '/api/admin/users.php', manager, { ...base, password: 'New-Pass-12' })).statusCode,
    ).toBe(200);
    expect((await call('GET', '/api/admin/settings.php', token)).statusCode).toBe(401);
    expect((await login('New-Pass-12')).statusCode).toBe(200);
    const fresh = bearer((await login('New-Pass-12')).json().token);
    expect(
      (await call('PUT', '/api/admin/users.php', manager, { ...base, is_active: false })).statusCode,
    ).toBe(200);
    expect((await call('GET', '/api/admin/settings.php', fresh)).statusCode).toBe(401);
    expect(
      (
        await call('PUT', '/api/admin/users.php', manager, {
          id: rootId,
          username: 'root',
          email: 'root@example.com',
          role: 'admin',
        })
      ).json().error,
    ).toBe(ADMIN_MESSAGES.onlySuperEditsSuper);
  });

  it('never deletes oneself, a super admin by a non-super, or the last super admin', async () => {
    const self = await call('DELETE', '/api/admin/users.php', manager, { id: managerId });
    expect(self.statusCode).toBe(403);
    expect(self.json().error).toBe(ADMIN_MESSAGES.notSelfDelete);
    expect((await call('DELETE', '/api/admin/users.php', manager, { id: rootId })).json().error).toBe(
      ADMIN_MESSAGES.onlySuperEditsSuper,
    );
    const victim = await buildAdmin(t.ctx, { username: 'victim2', permissions: [['plans', 'view']] });
    const victimToken = bearer(await adminToken(t.ctx, victim.id));
    expect((await call('DELETE', '/api/admin/users.php', manager, { id: victim.id })).json()).toEqual({
      success: true,
      message: 'Administrateur supprimé',
    });
    expect((await call('GET', '/api/admin/settings.php', victimToken)).statusCode).toBe(401);

    const supers = (await t.ctx.admins.findAll()).filter((a) => a.role === 'super_admin');
    for (const s of supers.filter((a) => a.id !== rootId))
      await call('DELETE', '/api/admin/users.php', root, { id: s.id });
    const other = await buildAdmin(t.ctx, { role: 'super_admin' });
    const otherToken = bearer(await adminToken(t.ctx, other.id));
    expect((await call('DELETE', '/api/admin/users.php', otherToken, { id: rootId })).statusCode).toBe(200);
    const last = await call('PUT', '/api/admin/users.php', otherToken, {
      id: other.id,
      username: other.username,
      email: other.email,
      role: 'admin',
    });
    expect(last.statusCode).toBe(403);
  });

  it('records every admin write in the system log with the admin id and ip', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/users.php',
      headers: manager,
      payload: { username: 'audited', email: 'a@example.com', password: 'Audit-Pass-1', role: 'admin' },
      remoteAddress: '10.7.7.7',
    });
    const row = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('category', '=', 'admin')
      .where('message', '=', 'Administrateur créé')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: managerId, ip_address: '10.7.7.7' });
    expect(row.details).toContain('audited');
  });
});
