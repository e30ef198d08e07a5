import { ZAdminStatsResponse } from '@securering/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/** Console-wide figures (cards and dashboard tab). */
export function getAdminStatsQueryOptions() {
  return queryOptions({
    queryKey: ['admin', 'stats'],
    queryFn: async ({ signal }) =>
      (await apiRequest('/api/admin/stats.php', { auth: 'admin', schema: ZAdminStatsResponse, signal })).data,
    refetchInterval: 60_000,
  });
}

export const useAdminStats = () => useQuery(getAdminStatsQueryOptions());

/** The server's readiness (drives the "système opérationnel" badge). */
export function useSystemHealth() {
  return useQuery({
    queryKey: ['admin', 'health'],
    queryFn: async ({ signal }) => {
      const res = await fetch('/healthz', { signal, cache: 'no-store' });
      return res.ok;
    },
    refetchInterval: 30_000,
    retry: false,
  });
}

export function useAppVersion() {
  return useQuery({
    queryKey: ['admin', 'version'],
    queryFn: async ({ signal }) =>
      ((await apiRequest('/api/admin/version.php', { auth: 'admin', signal })) as { version: string })
        .version,
    staleTime: Infinity,
  });
}
