import {
  ZAdminPlansResponse,
  ZDeleteAdminPlanResponse,
  ZOrderAdminPlansResponse,
  ZSaveAdminPlanResponse,
  type PlanEditorPayload,
} from '@securering/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export const plansKeys = {
  all: ['admin', 'plans'] as const,
};

/** Every plan, inactive ones included (GET /api/admin/plans.php). */
export function getAdminPlansQueryOptions() {
  return queryOptions({
    queryKey: plansKeys.all,
    queryFn: async ({ signal }) =>
      (
        await apiRequest('/api/admin/plans.php', {
          auth: 'admin',
          schema: ZAdminPlansResponse,
          signal,
          fallbackError: 'Impossible de charger les données.',
        })
      ).data,
  });
}

export const useAdminPlans = () => useQuery(getAdminPlansQueryOptions());

/** After a change: the admin list, the public plans and the manual-subscription selector. */
function useInvalidatePlans() {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: plansKeys.all }),
      client.invalidateQueries({ queryKey: ['plans', 'public'] }),
      client.invalidateQueries({ queryKey: ['admin', 'customers', 'active-plans'] }),
    ]);
}

/** POST (new plan) or PUT (with the id). */
export function useSavePlan() {
  const invalidate = useInvalidatePlans();
  return useMutation({
    mutationFn: (payload: PlanEditorPayload) =>
      apiRequest('/api/admin/plans.php', {
        method: payload.id ? 'PUT' : 'POST',
        auth: 'admin',
        body: payload,
        schema: ZSaveAdminPlanResponse,
        fallbackError: 'Impossible de sauvegarder le plan.',
      }),
    onSuccess: () => invalidate(),
  });
}

/** The card's switches: PUT with only the id and the flag. */
export function useTogglePlan() {
  const invalidate = useInvalidatePlans();
  return useMutation({
    mutationFn: (input: { id: string; active: boolean } | { id: string; popular: boolean }) =>
      apiRequest('/api/admin/plans.php', {
        method: 'PUT',
        auth: 'admin',
        body: input,
        schema: ZSaveAdminPlanResponse,
        fallbackError: 'Impossible de sauvegarder le plan.',
      }),
    onSettled: () => invalidate(),
  });
}

export function useDeletePlan() {
  const invalidate = useInvalidatePlans();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(`/api/admin/plans.php?id=${encodeURIComponent(id)}`, {
        method: 'DELETE',
        auth: 'admin',
        schema: ZDeleteAdminPlanResponse,
        fallbackError: 'Impossible de supprimer le plan.',
      }),
    onSuccess: () => invalidate(),
  });
}

/** ▲ / ▼ on a card: the whole order (POST plans-order.php); the site lists plans in it. */
export function useOrderPlans() {
  const invalidate = useInvalidatePlans();
  return useMutation({
    mutationFn: (ids: string[]) =>
      apiRequest('/api/admin/plans-order.php', {
        method: 'POST',
        auth: 'admin',
        body: { ids },
        schema: ZOrderAdminPlansResponse,
        fallbackError: 'Impossible de sauvegarder le plan.',
      }),
    onSettled: () => invalidate(),
  });
}

/** `ids` with the one at `index` moved by `step` (−1 up, +1 down); unchanged at the ends. */
export function movedIds(ids: readonly string[], index: number, step: -1 | 1): string[] {
  const target = index + step;
  const next = [...ids];
  if (index < 0 || target < 0 || target >= ids.length) return next;
  [next[index], next[target]] = [next[target]!, next[index]!];
  return next;
}
