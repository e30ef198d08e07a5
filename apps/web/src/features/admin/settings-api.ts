import { ZGetSettingsResponse, ZSaveSettingsResponse } from '@securering/contract';
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { flattenCategory, type SettingsMap } from '@/lib/site-settings';

export const SAVE_OK = 'Paramètres enregistrés';
export const SAVE_FAILED = 'Impossible de sauvegarder les paramètres.';

export const adminSettingsKey = (category: string) => ['admin', 'settings', category] as const;

/** One settings category as the admin sees it (admin keys included, secrets as a marker). */
export function getAdminSettingsQueryOptions(category: string) {
  return queryOptions({
    queryKey: adminSettingsKey(category),
    queryFn: async ({ signal }) => {
      const res = await apiRequest(`/api/admin/settings.php?category=${encodeURIComponent(category)}`, {
        auth: 'admin',
        schema: ZGetSettingsResponse,
        signal,
        fallbackError: 'Impossible de charger les données.',
      });
      return flattenCategory(res.data, category);
    },
    staleTime: 60_000,
  });
}

export const useAdminSettings = (category: string) => useQuery(getAdminSettingsQueryOptions(category));

/**
 * Saves some keys of one category (POST /api/admin/settings.php). That category's admin query and
 * the public settings queries are refreshed, so the console (colours, favicon, site name,
 * maintenance) follows at once; `alsoInvalidate` lists other queries built from these settings.
 */
export function useSaveSettings({ alsoInvalidate = [] }: { alsoInvalidate?: readonly QueryKey[] } = {}) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { category: string; settings: SettingsMap }) =>
      apiRequest('/api/admin/settings.php', {
        method: 'POST',
        auth: 'admin',
        body: input,
        schema: ZSaveSettingsResponse,
        fallbackError: SAVE_FAILED,
      }),
    onSuccess: async (_res, input) => {
      await Promise.all(
        [adminSettingsKey(input.category), ['settings'], ...alsoInvalidate].map((queryKey) =>
          client.invalidateQueries({ queryKey }),
        ),
      );
    },
  });
}
