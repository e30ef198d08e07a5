import { ZGetSettingsResponse, type TSettingsData } from '@securering/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { apiRequest } from './api-client';

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
        schema: ZGetSettingsResponse,
        signal,
      });
      return flattenCategory(response.data, category);
    },
    staleTime: 60_000,
  });
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
    if (HEX.test(general.primary_color ?? ''))
      root.style.setProperty('--color-primary', general.primary_color!);
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
