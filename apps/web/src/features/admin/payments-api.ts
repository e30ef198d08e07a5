import { SECRET_MARKER } from '@securering/contract';
import { useQueries, type UseQueryResult } from '@tanstack/react-query';
import type { SettingsMap } from '@/lib/site-settings';
import { getAdminSettingsQueryOptions, useSaveSettings } from './settings-api';

export const PAYMENT_CATEGORIES = ['stripe', 'paypal', 'nowpayments'] as const;
export type PaymentCategory = (typeof PAYMENT_CATEGORIES)[number];

/** Stored values of one provider (secrets come back as the marker when set). */
export type ProviderValues = SettingsMap;

type PaymentSettings =
  | { isPending: true; isError: false; error: null; data: undefined }
  | { isPending: false; isError: true; error: Error; data: undefined }
  | { isPending: false; isError: false; error: null; data: Record<PaymentCategory, ProviderValues> };

/** One state for the three queries: pending while one is, failed when one failed. */
function combinePaymentSettings(results: UseQueryResult<ProviderValues>[]) {
  const refetch = () => Promise.all(results.map((result) => result.refetch()));
  const [stripe, paypal, nowpayments] = results.map((result) => result.data);
  const error = results.find((result) => result.isError)?.error;
  let state: PaymentSettings;
  if (results.some((result) => result.isPending)) {
    state = { isPending: true, isError: false, error: null, data: undefined };
  } else if (error) {
    state = { isPending: false, isError: true, error, data: undefined };
  } else {
    state = {
      isPending: false,
      isError: false,
      error: null,
      data: { stripe: stripe!, paypal: paypal!, nowpayments: nowpayments! },
    };
  }
  return { ...state, refetch };
}

/** The three providers' settings as the admin may see them (the admin settings queries). */
export function usePaymentSettings() {
  return useQueries({
    queries: PAYMENT_CATEGORIES.map((category) => getAdminSettingsQueryOptions(category)),
    combine: combinePaymentSettings,
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

/**
 * Saves one provider's settings. Besides the admin settings, the subscribe page's provider list
 * (GET /api/subscriptions/providers.php, cached by the subscribe feature) is built from them.
 */
export const useSavePaymentSettings = () => useSaveSettings({ alsoInvalidate: [['subscribe', 'providers']] });
