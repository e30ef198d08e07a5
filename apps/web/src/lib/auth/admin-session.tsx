import {
  COOKIES,
  SESSION_TTL_DAYS,
  type AdminModule,
  type PermissionType,
  type TAdminPublic,
} from '@securering/contract';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, SESSION_EXPIRED_EVENT, apiRequest, clearSession, hasSession } from '../api-client';
import { logToServer } from '../client-log';
import { getJsonCookie, setJsonCookie } from '../cookies';
import { lazySchema } from '../lazy-schema';

export interface AdminSession {
  admin: TAdminPublic | null;
  /** True while the permissions of a non-super admin are loading. */
  loadingPermissions: boolean;
  can(module: AdminModule, type?: PermissionType): boolean;
  login(username: string, password: string): Promise<string | null>;
  logout(): Promise<void>;
}

const AdminSessionContext = createContext<AdminSession | null>(null);

/**
 * The admin session (spec 3 §4): token and admin in cookies for 30 days (the token HttpOnly, set by
 * the server, never read here). A super admin holds every
 * permission and fetches none; other admins read theirs from the server. The server checks every
 * call anyway: this only decides what the console shows.
 */
/** One admin's permission grid; the session reads its own, the Admins tab edits others'. */
export function adminPermissionsQueryOptions(adminId: string) {
  return queryOptions({
    queryKey: ['admin', 'permissions', adminId],
    queryFn: async ({ signal }) =>
      (
        await apiRequest(`/api/admin/permissions.php?admin_id=${encodeURIComponent(adminId)}`, {
          auth: 'admin',
          schema: lazySchema('ZAdminPermissionsResponse'),
          signal,
        })
      ).permissions,
  });
}

export function AdminSessionProvider({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const [admin, setAdmin] = useState<TAdminPublic | null>(() =>
    hasSession('admin') ? getJsonCookie<TAdminPublic>(COOKIES.adminUser) : null,
  );

  const reset = useCallback(() => {
    clearSession('admin');
    setAdmin(null);
    client.removeQueries({ queryKey: ['admin'] });
  }, [client]);

  useEffect(() => {
    const onExpired = (event: Event) => {
      if ((event as CustomEvent).detail === 'admin') reset();
    };
    window.addEventListener(SESSION_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(SESSION_EXPIRED_EVENT, onExpired);
  }, [reset]);

  const needsPermissions = Boolean(admin && admin.role !== 'super_admin');
  const permissions = useQuery({
    ...adminPermissionsQueryOptions(admin?.id ?? ''),
    enabled: needsPermissions,
    staleTime: 60_000,
  });

  const can = useCallback(
    (module: AdminModule, type: PermissionType = 'view') => {
      if (!admin) return false;
      if (admin.role === 'super_admin') return true;
      const entry = permissions.data?.find((p) => p.module_name === module);
      return Boolean(entry?.permissions.find((p) => p.permission_type === type)?.granted);
    },
    [admin, permissions.data],
  );

  const value = useMemo<AdminSession>(
    () => ({
      admin,
      loadingPermissions: needsPermissions && permissions.isPending,
      can,
      async login(username, password) {
        try {
          const res = await apiRequest('/api/admin/auth/login.php', {
            method: 'POST',
            body: { username, password },
            schema: lazySchema('ZAdminLoginResponse'),
            fallbackError: 'Identifiants invalides',
          });
          setJsonCookie(COOKIES.adminUser, res.admin, SESSION_TTL_DAYS.admin);
          setAdmin(res.admin);
          logToServer(
            'info',
            'auth',
            'Connexion administrateur réussie',
            { adminId: res.admin.id },
            res.admin.id,
          );
          return null;
        } catch (error) {
          if (error instanceof ApiError && error.kind !== 'network')
            return error.status === 401 ? 'Identifiants invalides' : error.message;
          return 'Erreur de connexion';
        }
      },
      async logout() {
        if (hasSession('admin'))
          await apiRequest('/api/admin/auth/logout.php', { method: 'POST', auth: 'admin' }).catch(
            () => undefined,
          );
        reset();
      },
    }),
    [admin, needsPermissions, permissions.isPending, can, reset],
  );
  return <AdminSessionContext.Provider value={value}>{children}</AdminSessionContext.Provider>;
}

/** The admin session; throws outside AdminSessionProvider (spec 1 §8). */
export function useAdminSession(): AdminSession {
  const session = useContext(AdminSessionContext);
  if (!session) throw new Error('useAdminSession doit être utilisé dans AdminSessionProvider');
  return session;
}
