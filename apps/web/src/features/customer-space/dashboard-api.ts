import {
  ZCreateRingResponse,
  ZCustomerPortalResponse,
  ZDashboardDataResponse,
  RING_USER_API_PATHS,
  ZInviteRingUserResponse,
  ZResendRingInvitationResponse,
  ZRingDetailResponse,
  ZRingUsersResponse,
  ZUpdateRingResponse,
  ZUpdateRingUserStatusResponse,
  type TInviteRingUserRequest,
  type TUpdateRingUserStatusRequest,
  type TUpdateRingRequest,
} from '@securering/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export const dashboardKeys = {
  all: ['customer'] as const,
  dashboard: () => ['customer', 'dashboard'] as const,
  ring: (ringId: string) => ['customer', 'ring', ringId] as const,
  users: (ringId: string) => ['customer', 'ring-users', ringId] as const,
};

export function getDashboardQueryOptions() {
  return queryOptions({
    queryKey: dashboardKeys.dashboard(),
    queryFn: async ({ signal }) =>
      (
        await apiRequest('/api/customer/dashboard-data.php', {
          auth: 'customer',
          schema: ZDashboardDataResponse,
          signal,
          fallbackError: 'Erreur de données',
        })
      ).data,
  });
}

export const useDashboard = () => useQuery(getDashboardQueryOptions());

export function useRingDetail(ringId: string | undefined) {
  return useQuery({
    queryKey: dashboardKeys.ring(ringId ?? ''),
    queryFn: async ({ signal }) =>
      (
        await apiRequest(`/api/customer/rings.php?ring_id=${encodeURIComponent(ringId!)}`, {
          auth: 'customer',
          schema: ZRingDetailResponse,
          signal,
        })
      ).data,
    enabled: Boolean(ringId),
  });
}

export function useRingUsers(ringId: string | undefined) {
  return useQuery({
    queryKey: dashboardKeys.users(ringId ?? ''),
    queryFn: async ({ signal }) =>
      (
        await apiRequest(`/api/customer/ring-users.php?ring_id=${encodeURIComponent(ringId!)}`, {
          auth: 'customer',
          schema: ZRingUsersResponse,
          signal,
        })
      ).data,
    enabled: Boolean(ringId),
  });
}

/** Refreshes everything the dashboard shows after a change. */
function useInvalidateCustomer() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: dashboardKeys.all });
}

/**
 * Creates a Ring. `onCreated` runs before the dashboard is refetched, so the new Ring is already the
 * selected one when the refreshed list (and with it the Ring selector) first shows it.
 */
export function useCreateRing(onCreated: (ringId: string) => void) {
  const invalidate = useInvalidateCustomer();
  return useMutation({
    mutationFn: (name: string) =>
      apiRequest('/api/customer/rings.php', {
        method: 'POST',
        auth: 'customer',
        body: { name },
        schema: ZCreateRingResponse,
        fallbackError: 'Erreur réseau lors de la création du ring',
      }),
    onSuccess: (res) => {
      onCreated(res.data.id);
      return invalidate();
    },
  });
}

export function useUpdateRing() {
  const invalidate = useInvalidateCustomer();
  return useMutation({
    mutationFn: (body: TUpdateRingRequest) =>
      apiRequest('/api/customer/rings.php', {
        method: 'PUT',
        auth: 'customer',
        body,
        schema: ZUpdateRingResponse,
        fallbackError: 'Sauvegarde impossible',
      }),
    onSuccess: invalidate,
  });
}

export function useInviteUser() {
  const invalidate = useInvalidateCustomer();
  return useMutation({
    mutationFn: (body: TInviteRingUserRequest) =>
      apiRequest('/api/customer/ring-users.php', {
        method: 'POST',
        auth: 'customer',
        body,
        schema: ZInviteRingUserResponse,
        fallbackError: 'Erreur lors de la création de l’invitation',
      }),
    onSuccess: invalidate,
  });
}

/** « Renvoyer »: a pending invitation is valid again for INVITATION_TTL_DAYS and mailed again. */
export function useResendInvitation() {
  const invalidate = useInvalidateCustomer();
  return useMutation({
    mutationFn: (userId: string) =>
      apiRequest(RING_USER_API_PATHS.resendInvitation, {
        method: 'POST',
        auth: 'customer',
        body: { user_id: userId },
        schema: ZResendRingInvitationResponse,
        fallbackError: 'Erreur lors du renvoi de l’invitation',
      }),
    onSuccess: invalidate,
  });
}

export function useRemoveUser() {
  const invalidate = useInvalidateCustomer();
  return useMutation({
    mutationFn: (userId: string) =>
      apiRequest('/api/customer/ring-users.php', {
        method: 'DELETE',
        auth: 'customer',
        body: { user_id: userId },
        fallbackError: 'Erreur lors de la suppression',
      }),
    onSuccess: invalidate,
  });
}

/**
 * "Désactiver" / "Réactiver" an accepted member: deactivation ends its sessions and sockets at once
 * and makes the Ring's next key epoch due.
 */
export function useSetUserStatus() {
  const invalidate = useInvalidateCustomer();
  return useMutation({
    mutationFn: (body: TUpdateRingUserStatusRequest) =>
      apiRequest('/api/customer/ring-users.php', {
        method: 'PATCH',
        auth: 'customer',
        body,
        schema: ZUpdateRingUserStatusResponse,
        fallbackError:
          body.status === 'inactive' ? 'Erreur lors de la désactivation' : 'Erreur lors de la réactivation',
      }),
    onSuccess: invalidate,
  });
}

export async function openPaymentPortal(): Promise<string> {
  const res = await apiRequest('/api/subscriptions/customer-portal.php', {
    method: 'POST',
    auth: 'customer',
    body: { return_url: `${window.location.origin}/client?tab=subscription` },
    schema: ZCustomerPortalResponse,
    fallbackError: 'Impossible d’ouvrir le portail de paiement',
  });
  return res.portal_url;
}

export function useCancelSubscription() {
  const invalidate = useInvalidateCustomer();
  return useMutation({
    mutationFn: () =>
      apiRequest('/api/subscriptions/cancel.php', {
        method: 'POST',
        auth: 'customer',
        fallbackError: 'Impossible d’annuler',
      }) as Promise<{ message: string }>,
    onSuccess: invalidate,
  });
}
