import {
  ADMIN_CUSTOMER_MESSAGES,
  ZAdminCustomerPaymentsResponse,
  ZAdminCustomerResponse,
  ZAdminCustomersResponse,
  ZAdminCustomerSubscriptionsResponse,
  ZCreateManualSubscriptionResponse,
  ZDeleteAdminCustomerResponse,
  ZPlansResponse,
  type TCreateAdminCustomerRequest,
  type TCreateManualSubscriptionRequest,
  type TUpdateAdminCustomerRequest,
} from '@securering/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { logToServer } from '@/lib/client-log';
import { getAdminStatsQueryOptions } from './admin-api';

const M = ADMIN_CUSTOMER_MESSAGES;

export const clientsKeys = {
  all: ['admin', 'customers'] as const,
  list: (search: string, page: number) => ['admin', 'customers', 'list', search, page] as const,
  subscriptions: (id: string) => ['admin', 'customers', id, 'subscriptions'] as const,
  payments: (id: string) => ['admin', 'customers', id, 'payments'] as const,
  plans: ['admin', 'customers', 'active-plans'] as const,
};

/** Customers changed: the lists, the customer's tabs and the console's figures are stale. */
function invalidateCustomers(client: ReturnType<typeof useQueryClient>) {
  return Promise.all([
    client.invalidateQueries({ queryKey: clientsKeys.all }),
    client.invalidateQueries({ queryKey: getAdminStatsQueryOptions().queryKey }),
  ]);
}

export function useAdminCustomers(search: string, page: number) {
  return useQuery({
    queryKey: clientsKeys.list(search, page),
    queryFn: async ({ signal }) => {
      const params = new URLSearchParams({ page: String(page), per_page: '25' });
      if (search) params.set('search', search);
      return apiRequest(`/api/admin/customers.php?${params.toString()}`, {
        auth: 'admin',
        schema: ZAdminCustomersResponse,
        signal,
        fallbackError: 'Impossible de charger les données.',
      });
    },
    placeholderData: keepPreviousData,
  });
}

export function useSaveCustomer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (
      input:
        | { kind: 'create'; body: TCreateAdminCustomerRequest }
        | { kind: 'update'; body: TUpdateAdminCustomerRequest },
    ) =>
      apiRequest('/api/admin/customers.php', {
        method: input.kind === 'create' ? 'POST' : 'PUT',
        auth: 'admin',
        body: input.body,
        schema: ZAdminCustomerResponse,
        fallbackError: 'Erreur lors de la sauvegarde.',
      }),
    onSuccess: () => {
      void invalidateCustomers(client);
    },
  });
}

export function useDeleteCustomer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest('/api/admin/customers.php', {
        method: 'DELETE',
        auth: 'admin',
        body: { id },
        schema: ZDeleteAdminCustomerResponse,
        fallbackError: 'Erreur lors de la suppression.',
      }),
    onSuccess: () => {
      void invalidateCustomers(client);
    },
  });
}

export function useCustomerSubscriptions(customerId: string) {
  return useQuery({
    queryKey: clientsKeys.subscriptions(customerId),
    queryFn: async ({ signal }) =>
      (
        await apiRequest(`/api/admin/customers/${encodeURIComponent(customerId)}/subscriptions`, {
          auth: 'admin',
          schema: ZAdminCustomerSubscriptionsResponse,
          signal,
          fallbackError: M.subscriptionsLoadFailed,
        })
      ).data,
    retry: false,
  });
}

export function useCreateManualSubscription(customerId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: TCreateManualSubscriptionRequest) =>
      apiRequest(`/api/admin/customers/${encodeURIComponent(customerId)}/create-subscription`, {
        method: 'POST',
        auth: 'admin',
        body,
        schema: ZCreateManualSubscriptionResponse,
        fallbackError: M.subscriptionCreateFailed,
      }),
    // The list of customers shows the current plan: it changes with a manual subscription.
    onSuccess: () => {
      void invalidateCustomers(client);
    },
  });
}

export function useCustomerPayments(customerId: string) {
  return useQuery({
    queryKey: clientsKeys.payments(customerId),
    queryFn: async ({ signal }) => {
      const { data, summary } = await apiRequest(
        `/api/admin/customers/${encodeURIComponent(customerId)}/payments`,
        {
          auth: 'admin',
          schema: ZAdminCustomerPaymentsResponse,
          signal,
          fallbackError: M.paymentsLoadFailed,
        },
      );
      return { data, summary };
    },
    retry: false,
  });
}

/** Plans offered by the manual subscription form: active ones only. A failure is only logged (spec 3 §8). */
export function useActivePlans() {
  return useQuery({
    queryKey: clientsKeys.plans,
    queryFn: async ({ signal }) => {
      try {
        const { data } = await apiRequest('/api/subscriptions/plans.php', { schema: ZPlansResponse, signal });
        return data.filter((plan) => plan.active);
      } catch (error) {
        if (!(error instanceof DOMException)) {
          logToServer('error', 'admin', 'Chargement des plans impossible (abonnement manuel)', {
            error: error instanceof Error ? error.message : String(error),
          });
        }
        throw error;
      }
    },
    staleTime: 60_000,
  });
}
