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
      permissions: [['admin_management', 'view']],
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

  it('lets a non-super admin grant only permissions it holds, never everything', async () => {
    const target = await buildAdmin(t.ctx, { username: 'granted' });
    const grantsOf = async (id: string) =>
      ZAdminPermissionsResponse.parse(
        (await call('GET', `/api/admin/permissions.php?admin_id=${id}`, root)).json(),
      ).permissions.flatMap((m) =>
        m.permissions.filter((p) => p.granted).map((p) => `${m.module_name}:${p.permission_type}`),
      );
    const everything = ZAdminPermissionsResponse.parse(
      (await call('GET', `/api/admin/permissions.php?admin_id=${target.id}`, root)).json(),
    ).permissions.flatMap((m) =>
      m.permissions.map((p) => ({
        module_name: m.module_name,
        permission_type: p.permission_type,
        granted: true,
      })),
    );
    const all = await call('PUT', '/api/admin/permissions.php', manager, {
      admin_id: target.id,
      permissions: everything,
    });
    expect(all.statusCode).toBe(403);
    expect(all.json().error).toBe(ADMIN_MESSAGES.notGrantable);
    const one = await call('PUT', '/api/admin/permissions.php', manager, {
      admin_id: target.id,
      permissions: [{ module_name: 'backup', permission_type: 'view', granted: true }],
    });
    expect(one.statusCode).toBe(403);
    expect(await grantsOf(target.id)).toEqual([]);

    // The whole grid, as the console sends it: the entries the manager lacks are left as they are.
    const grid = everything.map((p) => ({
      ...p,
      granted: p.module_name === 'admin_management' && p.permission_type === 'view',
    }));
    const ok = await call('PUT', '/api/admin/permissions.php', manager, {
      admin_id: target.id,
      permissions: grid,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await grantsOf(target.id)).toEqual(['admin_management:view']);

    // A super admin grants anything; after that the manager may no longer touch this admin.
    expect(
      (
        await call('PUT', '/api/admin/permissions.php', root, {
          admin_id: target.id,
          permissions: everything,
        })
      ).statusCode,
    ).toBe(200);
    const withdraw = await call('PUT', '/api/admin/permissions.php', manager, {
      admin_id: target.id,
      permissions: [{ module_name: 'admin_management', permission_type: 'view', granted: false }],
    });
    expect(withdraw.statusCode).toBe(403);
    expect(withdraw.json().error).toBe(ADMIN_MESSAGES.onlySuperEditsStronger);
    expect((await grantsOf(target.id)).length).toBe(everything.length);

    // A new account starts with nothing, whatever the request adds.
    const created = await call('POST', '/api/admin/users.php', manager, {
      username: 'sneaky',
      email: 'sneaky@example.com',
      password: 'Sneaky-Pass-1',
      role: 'admin',
      permissions: everything,
    });
    expect(created.statusCode).toBe(200);
    expect(await grantsOf(created.json().admin.id)).toEqual([]);
  });

  it('keeps a non-super admin from taking over a stronger admin or promoting anyone to super admin', async () => {
    const stronger = await buildAdmin(t.ctx, {
      username: 'stronger',
      password: 'Strong-Pass-1',
      permissions: [
        ['admin_management', 'view'],
        ['backup', 'view'],
      ],
    });
    const base = { id: stronger.id, username: 'stronger', email: 'strong@example.com', role: 'admin' };
    const reset = await call('PUT', '/api/admin/users.php', manager, { ...base, password: 'Taken-Over-1' });
    expect(reset.statusCode).toBe(403);
    expect(reset.json().error).toBe(ADMIN_MESSAGES.onlySuperEditsStronger);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/login.php',
      payload: { username: 'stronger', password: 'Taken-Over-1' },
    });
    expect(login.statusCode).toBe(401);
    const removed = await call('DELETE', '/api/admin/users.php', manager, { id: stronger.id });
    expect(removed.statusCode).toBe(403);
    expect(await t.ctx.admins.findById(stronger.id)).toBeDefined();

    const weaker = await buildAdmin(t.ctx, {
      username: 'weaker',
      permissions: [['admin_management', 'view']],
    });
    const promote = await call('PUT', '/api/admin/users.php', manager, {
      id: weaker.id,
      username: 'weaker',
      email: 'weaker@example.com',
      role: 'super_admin',
    });
    expect(promote.statusCode).toBe(403);
    expect(promote.json().error).toBe(ADMIN_MESSAGES.onlySuperCreatesSuper);
    const selfPromote = await call('PUT', '/api/admin/users.php', manager, {
      id: managerId,
      username: 'manager',
      email: 'manager@example.com',
      role: 'super_admin',
    });
    expect(selfPromote.statusCode).toBe(403);
    expect((await t.ctx.admins.findById(weaker.id))!.role).toBe('admin');
    expect((await t.ctx.admins.findById(managerId))!.role).toBe('admin');
    // A super admin may do all of it.
    expect(
      (await call('PUT', '/api/admin/users.php', root, { ...base, password: 'By-The-Root-1' })).statusCode,
    ).toBe(200);
  });

  it('ends an admin’s other sessions when it changes its own password, and keeps the current one', async () => {
    const self = await buildAdmin(t.ctx, {
      username: 'selfchange',
      password: 'Self-Pass-1',
      permissions: [
        ['admin_management', 'view'],
        ['admin_management', 'edit'],
      ],
    });
    const signIn = async (password: string) =>
      bearer(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/admin/auth/login.php',
            payload: { username: 'selfchange', password },
          })
        ).json().token,
      );
    const laptop = await signIn('Self-Pass-1');
    const phone = await signIn('Self-Pass-1');
    const base = { id: self.id, username: 'selfchange', email: 'self@example.com', role: 'admin' };
    // Saving without a new password ends nothing.
    expect((await call('PUT', '/api/admin/users.php', laptop, base)).statusCode).toBe(200);
    expect((await call('GET', '/api/admin/users.php', phone)).statusCode).toBe(200);

    const changed = await call('PUT', '/api/admin/users.php', laptop, { ...base, password: 'Self-Pass-2' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await call('GET', '/api/admin/users.php', laptop)).statusCode).toBe(200);
    const stale = await call('GET', '/api/admin/users.php', phone);
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error).toBe('Session expirée');
    expect((await call('GET', '/api/admin/users.php', await signIn('Self-Pass-2'))).statusCode).toBe(200);
  });

  it('never deletes oneself, a super admin by a non-super, or the last super admin', async () => {
    const self = await call('DELETE', '/api/admin/users.php', manager, { id: managerId });
    expect(self.statusCode).toBe(403);
    expect(self.json().error).toBe(ADMIN_MESSAGES.notSelfDelete);
    expect((await call('DELETE', '/api/admin/users.php', manager, { id: rootId })).json().error).toBe(
      ADMIN_MESSAGES.onlySuperEditsSuper,
    );
    const victim = await buildAdmin(t.ctx, {
      username: 'victim2',
      permissions: [['admin_management', 'view']],
    });
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
