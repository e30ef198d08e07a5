import {
  MESSAGES,
  REALTIME_MESSAGES,
  ZRealtimeRestartResponse,
  ZRealtimeStatusResponse,
  type TRealtimeStatusResponse,
} from '@securering/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { SESSION_EXPIRED_EVENT, clearSession, getToken } from '@/lib/api-client';
import { logToServer } from '@/lib/client-log';

/** A failed realtime call: `network` when the server could not be reached. */
export class RealtimeCallError extends Error {
  constructor(
    message: string,
    readonly kind: 'network' | 'http',
  ) {
    super(message);
    this.name = 'RealtimeCallError';
  }
}

/**
 * The realtime calls carry X-Timestamp (unix seconds, the server's replay guard) besides the
 * admin bearer, which apiRequest cannot add; the rest follows apiRequest (401 ends the session).
 */
async function realtimeFetch(
  path: string,
  init: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal },
): Promise<unknown> {
  const token = getToken('admin');
  if (!token) throw new RealtimeCallError(MESSAGES.notAuthenticated, 'http');
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Authorization: `Bearer ${token}`,
    'X-Timestamp': String(Math.floor(Date.now() / 1000)),
  };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
      cache: 'no-store',
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new RealtimeCallError(REALTIME_MESSAGES.network, 'network');
  }
  const json: unknown = await response.json().catch(() => undefined);
  const envelope = (json ?? {}) as { success?: boolean; error?: string };
  if (response.status === 401) {
    clearSession('admin');
    window.dispatchEvent(new CustomEvent(SESSION_EXPIRED_EVENT, { detail: 'admin' }));
    throw new RealtimeCallError(MESSAGES.sessionExpired, 'http');
  }
  if (!response.ok || envelope.success === false) {
    const message = envelope.error ?? `HTTP ${response.status}: Réponse vide du serveur`;
    logToServer('error', 'api', 'Échec d’une requête authentifiée', {
      url: path,
      error: message,
      status: response.status,
    });
    throw new RealtimeCallError(message, 'http');
  }
  return json;
}

export function getRealtimeStatusQueryOptions() {
  return queryOptions({
    queryKey: ['admin', 'realtime-status'],
    queryFn: async ({ signal }): Promise<TRealtimeStatusResponse> => {
      const parsed = ZRealtimeStatusResponse.safeParse(
        await realtimeFetch('/api/admin/realtime-status.php', { method: 'GET', signal }),
      );
      if (!parsed.success) throw new RealtimeCallError(REALTIME_MESSAGES.unreachable, 'http');
      return parsed.data;
    },
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
      const json = await realtimeFetch('/api/admin/realtime-restart.php', {
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
