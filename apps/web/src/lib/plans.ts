import { videoOptionPriceLabel, type TPublicPlan } from '@securering/contract';
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { apiRequest } from './api-client';
import { lazySchema } from './lazy-schema';

/** Active plans (GET /api/subscriptions/plans.php), shared by the home page and /subscribe. */
export function getPlansQueryOptions() {
  return queryOptions({
    queryKey: ['plans', 'public'],
    queryFn: async ({ signal }) =>
      (
        await apiRequest('/api/subscriptions/plans.php', {
          schema: lazySchema('ZPlansResponse'),
          signal,
          fallbackError: 'Erreur lors du chargement des plans',
        })
      ).data,
    staleTime: 60_000,
  });
}

/** Id of the JSON block with the active plans that the server writes into the home page (spa.ts). */
const PLANS_ELEMENT_ID = 'securering-plans';

/**
 * Puts the plans the server wrote into the home page (already checked there against the
 * contract) in the query cache: the grid shows at once, without a request or the validation code.
 */
export function seedPlansFromPage(client: QueryClient, doc: Document = document): void {
  const text = doc.getElementById(PLANS_ELEMENT_ID)?.textContent;
  if (!text) return;
  let plans: unknown;
  try {
    plans = JSON.parse(text);
  } catch {
    return;
  }
  const looksRight =
    Array.isArray(plans) &&
    plans.every(
      (plan: unknown) =>
        typeof plan === 'object' &&
        plan !== null &&
        typeof (plan as { id?: unknown }).id === 'string' &&
        Array.isArray((plan as { features?: unknown }).features),
    );
  if (looksRight) client.setQueryData(getPlansQueryOptions().queryKey, plans as TPublicPlan[]);
}

export function usePlans() {
  return useQuery(getPlansQueryOptions());
}

/** "Illimité" for -1, the number otherwise. */
export function formatLimit(value: number): string {
  return value < 0 ? 'Illimité' : String(value);
}

/** '+4,90 € / mois' (the one money format), or '✓ Vidéo incluse' when the option costs nothing (spec 1 §2). */
export function videoOptionLabel(videoOptionEuros: number, period: 'mois' | 'an' = 'mois'): string {
  return videoOptionEuros > 0 ? videoOptionPriceLabel(videoOptionEuros, period) : '✓ Vidéo incluse';
}

/**
 * « Commencer » on a plan of the home page: the visitor's choice is stored on the server (a visitor
 * cookie, POST store-selection.php without a bearer) so that it follows the visitor through
 * registration and email verification onto /subscribe. Failures are ignored: registration goes on.
 */
export async function storeVisitorSelection(plan: Pick<TPublicPlan, 'id' | 'video_option'>): Promise<void> {
  try {
    await apiRequest('/api/subscriptions/store-selection.php', {
      method: 'POST',
      body: { plan_id: plan.id, billing_cycle: 'monthly', video_option: plan.video_option === 0 },
    });
  } catch {
    // The choice is a convenience: without it the visitor picks the plan again on /subscribe.
  }
}
