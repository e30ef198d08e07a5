import {
  ZCheckoutResponse,
  ZCryptoCheckoutResponse,
  ZPaymentProvidersResponse,
  ZPlanChangeResponse,
  ZSelectionResponse,
  type CryptoCurrency,
  type TSelection,
} from '@securering/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export function getProvidersQueryOptions() {
  return queryOptions({
    queryKey: ['subscribe', 'providers'],
    queryFn: async ({ signal }) =>
      (await apiRequest('/api/subscriptions/providers.php', { schema: ZPaymentProvidersResponse, signal }))
        .providers,
    staleTime: 30_000,
  });
}

export const useProviders = () => useQuery(getProvidersQueryOptions());

export function useCurrentSelection(enabled: boolean) {
  return useQuery({
    queryKey: ['subscribe', 'selection'],
    queryFn: async ({ signal }) =>
      (
        await apiRequest('/api/subscriptions/current-selection.php', {
          auth: 'customer',
          schema: ZSelectionResponse,
          signal,
        })
      ).data,
    enabled,
    staleTime: 0,
  });
}

/**
 * What paying for this plan does to the subscription the customer holds (null: none), said before
 * payment: the time left is kept (same plan) or lost (another plan).
 */
export function usePlanChange(planId: string) {
  return useQuery({
    queryKey: ['subscribe', 'plan-change', planId],
    queryFn: async ({ signal }) =>
      (
        await apiRequest(`/api/subscriptions/plan-change.php?plan_id=${encodeURIComponent(planId)}`, {
          auth: 'customer',
          schema: ZPlanChangeResponse,
          signal,
        })
      ).change,
    staleTime: 0,
  });
}

export async function storeSelection(selection: TSelection): Promise<void> {
  await apiRequest('/api/subscriptions/store-selection.php', {
    method: 'POST',
    auth: 'customer',
    body: selection,
    fallbackError: 'Erreur lors de la sélection',
  });
}

const checkoutBody = (s: TSelection) => ({
  plan_id: s.plan_id,
  billing_period: s.billing_cycle,
  video_option: s.video_option,
});

export type RedirectProvider = 'card' | 'paypal' | 'test';
const CHECKOUT_PATHS: Record<RedirectProvider, string> = {
  card: '/api/subscriptions/create-checkout.php',
  paypal: '/api/subscriptions/create-paypal-checkout.php',
  test: '/api/subscriptions/create-test-checkout.php',
};

export async function createCheckout(provider: RedirectProvider, selection: TSelection) {
  return apiRequest(CHECKOUT_PATHS[provider], {
    method: 'POST',
    auth: 'customer',
    body: checkoutBody(selection),
    schema: ZCheckoutResponse,
    fallbackError: 'Erreur lors de la création du paiement',
  });
}

export async function createCryptoCheckout(selection: TSelection, currency: CryptoCurrency) {
  return apiRequest('/api/subscriptions/create-crypto-checkout.php', {
    method: 'POST',
    auth: 'customer',
    body: { ...checkoutBody(selection), currency },
    schema: ZCryptoCheckoutResponse,
    fallbackError: 'Erreur lors de la création du paiement crypto',
  });
}
