import {
  SECRET_MARKER,
  ZGetSettingsResponse,
  ZSaveSettingsResponse,
  type TSettingsData,
} from '@securering/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiRequest } from '@/lib/api-client';

export const PAYMENT_CATEGORIES = ['stripe', 'paypal', 'nowpayments'] as const;
export type PaymentCategory = (typeof PAYMENT_CATEGORIES)[number];

export const paymentsKeys = { settings: ['admin', 'payments', 'settings'] as const };

/** Stored values of one provider (secrets come back as the marker when set). */
export type ProviderValues = Record<string, string>;

function valuesOf(data: TSettingsData, category: PaymentCategory): ProviderValues {
  const out: ProviderValues = {};
  for (const [key, entry] of Object.entries(data[category] ?? {})) out[key] = entry.setting_value;
  return out;
}

/** The three providers' settings as the admin may see them (GET /api/admin/settings.php). */
export function usePaymentSettings() {
  return useQuery({
    queryKey: paymentsKeys.settings,
    queryFn: async ({ signal }) => {
      const { data } = await apiRequest('/api/admin/settings.php', {
        auth: 'admin',
        schema: ZGetSettingsResponse,
        signal,
        fallbackError: 'Impossible de charger les données.',
      });
      return {
        stripe: valuesOf(data, 'stripe'),
        paypal: valuesOf(data, 'paypal'),
        nowpayments: valuesOf(data, 'nowpayments'),
      } satisfies Record<PaymentCategory, ProviderValues>;
    },
  });
}

/**
 * The values to send: every plain field, and a secret only when the admin changed it (a secret
 * still showing the marker is left out, so the stored one is kept).
 */
export function settingsToSave(
  initial: ProviderValues,
  current: ProviderValues,
  secretKeys: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(current)) {
    if (secretKeys.includes(key) && (value === SECRET_MARKER || value === initial[key])) continue;
    out[key] = value;
  }
  return out;
}

export function useSavePaymentSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { category: PaymentCategory; settings: Record<string, string> }) =>
      apiRequest('/api/admin/settings.php', {
        method: 'POST',
        auth: 'admin',
        body: input,
        schema: ZSaveSettingsResponse,
        fallbackError: 'Impossible de sauvegarder les paramètres.',
      }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: paymentsKeys.settings }),
        // The public site reads the provider flags.
        client.invalidateQueries({ queryKey: ['settings'] }),
      ]),
  });
}

export function paymentsProblem(error: unknown): string {
  if (error instanceof ApiError) {
    return error.kind === 'network' ? 'Erreur de communication avec le serveur.' : error.message;
  }
  return 'Impossible de sauvegarder les paramètres.';
}
