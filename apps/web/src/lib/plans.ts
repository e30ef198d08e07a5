import { ZPlansResponse, formatAmount } from '@securering/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from './api-client';

/** Active plans (GET /api/subscriptions/plans.php), shared by the home page and /subscribe. */
export function getPlansQueryOptions() {
  return queryOptions({
    queryKey: ['plans', 'public'],
    queryFn: async ({ signal }) =>
      (
        await apiRequest('/api/subscriptions/plans.php', {
          schema: ZPlansResponse,
          signal,
          fallbackError: 'Erreur lors du chargement des plans',
        })
      ).data,
    staleTime: 60_000,
  });
}

export function usePlans() {
  return useQuery(getPlansQueryOptions());
}

/** "Illimité" for -1, the number otherwise. */
export function formatLimit(value: number): string {
  return value < 0 ? 'Illimité' : String(value);
}

/** '+€X/mois', or '✓ Vidéo incluse' when the option costs nothing (spec 1 §2). */
export function videoOptionLabel(videoOptionEuros: number, period: 'mois' | 'an' = 'mois'): string {
  return videoOptionEuros > 0 ? `+€${formatAmount(videoOptionEuros)}/${period}` : '✓ Vidéo incluse';
}
