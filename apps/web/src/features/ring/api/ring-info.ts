import { ZRingInfoResponse } from '@securering/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export const RING_INFO_KEY = ['ring', 'info'] as const;

/** GET /api/rings/info.php: the Ring, the caller and the members (with their public keys). */
export function getRingInfoQueryOptions() {
  return queryOptions({
    queryKey: RING_INFO_KEY,
    queryFn: ({ signal }) =>
      apiRequest('/api/rings/info.php', { auth: 'ring', schema: ZRingInfoResponse, signal }),
    refetchInterval: 60_000,
  });
}

export const useRingInfo = () => useQuery(getRingInfoQueryOptions());
