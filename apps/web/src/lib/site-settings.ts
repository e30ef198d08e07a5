import type { TSettingsData } from '@securering/contract';
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { apiRequest } from './api-client';
import { lazySchema } from './lazy-schema';

export type SettingsMap = Record<string, string>;

/** Flattens `{ key: { setting_value } }` into `{ key: value }`. */
export function flattenCategory(data: TSettingsData, category: string): SettingsMap {
  const entries = data[category] ?? {};
  return Object.fromEntries(Object.entries(entries).map(([key, v]) => [key, v.setting_value]));
}

/** Public settings of one category, from GET /api/settings.php?category=… */
export function getSettingsQueryOptions(category: string) {
  return queryOptions({
    queryKey: ['settings', 'public', category],
    queryFn: async ({ signal }) => {
      const response = await apiRequest(`/api/settings.php?category=${encodeURIComponent(category)}`, {
        schema: lazySchema('ZGetSettingsResponse'),
        signal,
      });
      return flattenCategory(response.data, category);
    },
    staleTime: 60_000,
  });
}

/** Id of the JSON block in which the server writes public settings into the page (spa.ts). */
const BOOTSTRAP_ELEMENT_ID = 'securering-settings';

/** `{ category: { key: value } }` with string values only; anything else is not ours. */
export function parseBootstrapSettings(text: string): Record<string, SettingsMap> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: Record<string, SettingsMap> = {};
  for (const [category, entries] of Object.entries(value)) {
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) return null;
    if (!Object.values(entries).every((v) => typeof v === 'string')) return null;
    out[category] = entries as SettingsMap;
  }
  return out;
}

/**
 * Puts the public settings the server wrote into the page in the query cache, so the first render
 * shows the site's name, colours and maintenance state without waiting for the API (the queries
 * refresh them as usual once stale).
 */
export function seedSettingsFromPage(client: QueryClient, doc: Document = document): void {
  const text = doc.getElementById(BOOTSTRAP_ELEMENT_ID)?.textContent;
  const settings = text ? parseBootstrapSettings(text) : null;
  if (!settings) return;
  for (const [category, values] of Object.entries(settings)) {
    client.setQueryData(getSettingsQueryOptions(category).queryKey, values);
  }
}

export function useSettings(category: string) {
  return useQuery(getSettingsQueryOptions(category));
}

export const DEFAULT_GENERAL: SettingsMap = {
  site_name: 'SecureRing',
  primary_color: '#3b82f6',
  secondary_color: '#64748b',
};

/** General settings with defaults while loading, so the frame renders at once. */
export function useGeneralSettings(): SettingsMap {
  const { data } = useSettings('general');
  return data ?? DEFAULT_GENERAL;
}

const HEX = /^#[0-9a-fA-F]{6}$/;

/** Applies brand colours and favicon from settings to the document. */
export function useApplySiteSettings(): void {
  const general = useGeneralSettings();
  useEffect(() => {
    const root = document.documentElement;
    // Text and filled buttons use the brand colour, darkened when needed to stay readable
    // (lib/colors.ts). index.css already holds the default one in that form; any other is
    // converted by a small chunk loaded only then.
    const primary = general.primary_color ?? '';
    if (primary.toLowerCase() === DEFAULT_GENERAL.primary_color) root.style.removeProperty('--color-primary');
    else if (HEX.test(primary)) {
      void import('./colors')
        .then(({ readableBrandColor }) =>
          root.style.setProperty('--color-primary', readableBrandColor(primary)),
        )
        .catch(() => undefined);
    }
    if (HEX.test(general.secondary_color ?? ''))
      root.style.setProperty('--color-secondary', general.secondary_color!);
  }, [general.primary_color, general.secondary_color]);
  useEffect(() => {
    if (!general.favicon) return;
    let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (!link) {
      link = document.createElement('link');
      link.rel = 'icon';
      document.head.appendChild(link);
    }
    link.href = general.favicon;
  }, [general.favicon]);
}

/** Sets the tab title: "Page — Site" (or the site title on the home page). */
export function usePageTitle(title?: string): void {
  const general = useGeneralSettings();
  useEffect(() => {
    const site = general.site_name || 'SecureRing';
    document.title = title ? `${title} — ${site}` : general.site_title || site;
  }, [title, general.site_name, general.site_title]);
}
