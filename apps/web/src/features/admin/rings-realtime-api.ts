import {
  REALTIME_MESSAGES,
  ZRealtimeRestartResponse,
  ZRealtimeStatusResponse,
  type TRealtimeStatusResponse,
} from '@securering/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiRequest } from '@/lib/api-client';

/**
 * The realtime calls carry X-Timestamp (unix seconds, the server's replay guard) besides the
 * admin bearer, and are never served from the HTTP cache.
 */
function realtimeRequest<S extends z.ZodType | undefined = undefined>(
  path: string,
  options: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal; schema?: S },
) {
  return apiRequest(path, {
    ...options,
    auth: 'admin',
    headers: { 'X-Timestamp': String(Math.floor(Date.now() / 1000)) },
    cache: 'no-store',
    networkError: REALTIME_MESSAGES.network,
  });
}

export function getRealtimeStatusQueryOptions() {
  return queryOptions({
    queryKey: ['admin', 'realtime-status'],
    queryFn: ({ signal }): Promise<TRealtimeStatusResponse> =>
      realtimeRequest('/api/admin/realtime-status.php', {
        method: 'GET',
        signal,
        schema: ZRealtimeStatusResponse,
      }),
    refetchInterval: 10_000,
    retry: false,
  });
}

/** The realtime service's status, refreshed every 10 s while the Rings tab is open. */
export const useRealtimeStatus = () => useQuery(getRealtimeStatusQueryOptions());

/** Super admins only: every socket closes and clients reconnect by themselves. */
export function useRestartRealtime() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (reason: string) => {
      const json = await realtimeRequest('/api/admin/realtime-restart.php', {
        method: 'POST',
        body: { reason, at: new Date().toISOString() },
      });
      const parsed = ZRealtimeRestartResponse.safeParse(json);
      return parsed.success ? parsed.data.message : REALTIME_MESSAGES.restartRequested;
    },
    onSuccess: () => {
      // The status shows the fresh uptime once the clients are back.
      setTimeout(() => void client.invalidateQueries({ queryKey: ['admin', 'realtime-status'] }), 1500);
    },
  });
}
