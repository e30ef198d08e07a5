import { ZRingInfoResponse } from '@securering/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { useSettings } from '@/lib/site-settings';

export const RING_INFO_KEY = ['ring', 'info'] as const;

/**
 * The room's periodic refresh, from the back office's « Intervalle de rafraîchissement des Rings »
 * (public setting general.ring_refresh_interval, 5 to 300 s, default 10 s), in ms.
 */
export function ringRefreshMs(value: string | undefined): number {
  const seconds = value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(seconds) ? Math.min(300, Math.max(5, seconds)) * 1000 : 10_000;
}

/** The room's refresh interval (ms) as the back office set it. */
export function useRingRefreshMs(): number {
  return ringRefreshMs(useSettings('general').data?.ring_refresh_interval);
}

/** GET /api/rings/info.php: the Ring, the caller and the members (with their public keys). */
export function getRingInfoQueryOptions(refreshMs = 10_000) {
  return queryOptions({
    queryKey: RING_INFO_KEY,
    queryFn: ({ signal }) =>
      apiRequest('/api/rings/info.php', { auth: 'ring', schema: ZRingInfoResponse, signal }),
    refetchInterval: refreshMs,
  });
}

export const useRingInfo = () => useQuery(getRingInfoQueryOptions(useRingRefreshMs()));
