import {
  ADMIN_MODULES,
  PERMISSION_TYPE_NAMES,
  type AdminModule,
  type PermissionType,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN, buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin } from '../factories';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface Endpoint {
  method: Method;
  url: string;
  /** null: any signed-in admin; 'super': super admins only. */
  needs: { module: AdminModule; type: PermissionType } | null | 'super';
  payload?: object;
  headers?: Record<string, string>;
}

const MISSING = '00000000-0000-7000-8000-000000000000';
const timestamp = () => ({ 'x-timestamp': String(Math.floor(Date.now() / 1000)) });
const m = (module: AdminModule, type: PermissionType) => ({ module, type });

/** Every back-office endpoint with the permission it needs (spec 3 §6, issue rules). */
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', url: '/api/admin/stats.php', needs: null },
  { method: 'GET', url: '/api/admin/version.php', needs: null },
  { method: 'POST', url: '/api/admin/auth/logout.php', needs: null },
  { method: 'GET', url: '/api/admin/users.php', needs: m('admin_management', 'view') },
  {
    method: 'POST',
    url: '/api/admin/users.php',
    needs: m('admin_management', 'create'),
    payload: { username: 'x', email: 'bad', password: 'x', role: 'admin' },
  },
  {
    method: 'PUT',
    url: '/api/admin/users.php',
    needs: m('admin_management', 'edit'),
    payload: { id: MISSING, username: 'nobody', email: 'n@example.com', role: 'admin' },
  },
  {
    method: 'DELETE',
    url: '/api/admin/users.php',
    needs: m('admin_management', 'delete'),
    payload: { id: MISSING },
  },
  {
    method: 'PUT',
    url: '/api/admin/permissions.php',
    needs: m('admin_management', 'edit'),
    payload: { admin_id: MISSING, permissions: [] },
  },
  { method: 'GET', url: '/api/admin/customers.php', needs: m('client_users', 'view') },
  {
    method: 'POST',
    url: '/api/admin/customers.php',
    needs: m('client_users', 'create'),
    payload: { email: '' },
  },
  {
    method: 'PUT',
    url: '/api/admin/customers.php',
    needs: m('client_users', 'edit'),
    payload: { id: MISSING },
  },
  {
    method: 'DELETE',
    url: '/api/admin/customers.php',
    needs: m('client_users', 'delete'),
    payload: { id: MISSING },
  },
  { method: 'GET', url: `/api/admin/customers/${MISSING}/subscriptions`, needs: m('client_users', 'view') },
  {
    method: 'POST',
    url: `/api/admin/customers/${MISSING}/create-subscription`,
    needs: m('client_users', 'create'),
    payload: {},
  },
  { method: 'GET', url: `/api/admin/customers/${MISSING}/payments`, needs: m('client_users', 'view') },
  { method: 'GET', url: '/api/admin/plans', needs: m('plans', 'view') },
  { method: 'GET', url: '/api/admin/plans.php', needs: m('plans', 'view') },
  { method: 'POST', url: '/api/admin/plans.php', needs: m('plans', 'create'), payload: { name: '' } },
  {
    method: 'PUT',
    url: '/api/admin/plans.php',
    needs: m('plans', 'edit'),
    payload: { id: MISSING, active: false },
  },
  { method: 'DELETE', url: `/api/admin/plans.php?id=${MISSING}`, needs: m('plans', 'delete') },
  { method: 'GET', url: '/api/admin/transactions.php', needs: m('transactions', 'view') },
  { method: 'GET', url: '/api/admin/transactions.php?format=csv', needs: m('transactions', 'view') },
  { method: 'GET', url: '/api/admin/email-templates.php', needs: m('email_management', 'view') },
  {
    method: 'PUT',
    url: '/api/admin/email-templates.php',
    needs: m('email_management', 'edit'),
    payload: { id: MISSING },
  },
  {
    method: 'POST',
    url: '/api/admin/email-templates.php',
    needs: m('email_management', 'edit'),
    payload: { action: 'reset_default', name: 'nope' },
  },
  {
    method: 'POST',
    url: '/api/admin/email-templates.php',
    needs: m('email_management', 'create'),
    payload: { name: '' },
  },
  {
    method: 'POST',
    url: '/api/admin/email-test.php',
    needs: m('email_management', 'edit'),
    payload: { email: '' },
  },
  { method: 'GET', url: '/api/admin/logs.php', needs: m('system_logs', 'view') },
  {
    method: 'POST',
    url: '/api/admin/logs.php',
    needs: m('system_logs', 'edit'),
    payload: { action: 'toggle_logging', enabled: true },
  },
  {
    method: 'POST',
    url: '/api/admin/logs.php',
    needs: m('system_logs', 'delete'),
    payload: { action: 'purge_old', days: 3650 },
  },
  { method: 'GET', url: '/api/admin/backup.php?action=list', needs: m('backup', 'view') },
  // Archives hold every secret of the service: download and restore are for super admins.
  {
    method: 'GET',
    url: '/api/admin/backup.php?action=download&filename=missing.zip',
    needs: 'super',
  },
  {
    method: 'POST',
    url: '/api/admin/backup.php',
    needs: 'super',
    payload: { action: 'restore', filename: 'missing.zip' },
  },
  { method: 'DELETE', url: '/api/admin/backup.php?filename=missing.zip', needs: m('backup', 'delete') },
  {
    method: 'POST',
    url: '/api/admin/settings.php',
    needs: m('site_settings', 'edit'),
    payload: { category: 'general', settings: { tagline: 'Matrice' } },
  },
  {
    method: 'POST',
    url: '/api/admin/settings.php',
    needs: m('email_management', 'edit'),
    payload: { category: 'smtp', settings: { from_name: 'Matrice' } },
  },
  {
    method: 'POST',
    url: '/api/admin/settings.php',
    needs: m('payment_settings', 'edit'),
    payload: { category: 'stripe', settings: { test_mode: '1' } },
  },
  { method: 'POST', url: '/api/admin/upload.php', needs: m('site_settings', 'edit'), payload: {} },
  {
    method: 'GET',
    url: '/api/admin/realtime-status.php',
    needs: m('site_settings', 'view'),
    headers: timestamp(),
  },
  {
    method: 'POST',
    url: '/api/admin/realtime-restart.php',
    needs: 'super',
    payload: { reason: 'matrice', at: 0 },
    headers: timestamp(),
  },
];

describe('back-office permission matrix: every endpoint × no token / no module / the permission / super admin', () => {
  let t: TestApp;
  let rootId: string;
  let nobodyId: string;

  beforeAll(async () => {
    t = await buildTestApp();
    rootId = (await t.ctx.admins.findByUsername(TEST_ADMIN.username))!.id;
    nobodyId = (await buildAdmin(t.ctx)).id;
  });
  afterAll(() => t.close());

  const call = (e: Endpoint, headers: Record<string, string>) =>
    t.app.inject({
      method: e.method,
      url: e.url,
      headers: { ...e.headers, ...headers },
      ...(e.payload ? { payload: e.payload } : {}),
    });
  const label = (e: Endpoint) =>
    `${e.method} ${e.url}${e.payload && 'action' in e.payload ? ` (${String(e.payload.action)})` : ''}${e.payload && 'category' in e.payload ? ` (${String(e.payload.category)})` : ''}`;

  it.each(ENDPOINTS.map((e) => [label(e), e] as const))('%s', async (_name, endpoint) => {
    const anonymous = await call(endpoint, {});
    expect(anonymous.statusCode, 'no token').toBe(401);
    expect(anonymous.json().error).toBe('Non authentifié');

    // Fresh sessions for each endpoint: the logout endpoint ends the one it is called with.
    const nobody = bearer(await adminToken(t.ctx, nobodyId));
    const superToken = bearer(await adminToken(t.ctx, rootId));
    const bare = await call(endpoint, nobody);
    if (endpoint.needs === null) expect(bare.statusCode, 'any admin').not.toBe(403);
    else expect(bare.statusCode, 'admin without the module').toBe(403);

    if (endpoint.needs && endpoint.needs !== 'super') {
      const { module, type } = endpoint.needs;
      const holder = await buildAdmin(t.ctx, { permissions: [[module, type]] });
      const allowed = await call(endpoint, bearer(await adminToken(t.ctx, holder.id)));
      expect([401, 403], `with ${module}:${type}`).not.toContain(allowed.statusCode);

      const others = PERMISSION_TYPE_NAMES.filter((p) => p !== type).map(
        (p) => [module, p] as [AdminModule, PermissionType],
      );
      const almost = await buildAdmin(t.ctx, { permissions: others });
      const refused = await call(endpoint, bearer(await adminToken(t.ctx, almost.id)));
      expect(refused.statusCode, `with every ${module} permission but ${type}`).toBe(403);
    }
    if (endpoint.needs === 'super') {
      // Every permission of every module is still not the role.
      const everything = await buildAdmin(t.ctx, {
        permissions: ADMIN_MODULES.flatMap((mod) =>
          PERMISSION_TYPE_NAMES.map((type) => [mod.name, type] as [AdminModule, PermissionType]),
        ),
      });
      expect(
        (await call(endpoint, bearer(await adminToken(t.ctx, everything.id)))).statusCode,
        'non-super admin',
      ).toBe(403);
    }

    const superCall = await call(endpoint, superToken);
    expect([401, 403], 'super admin').not.toContain(superCall.statusCode);
    expect(superCall.statusCode, 'never a server error').toBeLessThan(500);
  });

  it('keeps the public reads public: login and the settings read', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/settings.php' })).statusCode).toBe(200);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/admin/auth/login.php',
          payload: { username: 'x', password: 'y' },
        })
      ).statusCode,
    ).toBe(401);
  });
});
