import {
  LOG_PAGE_SIZE,
  ZAdminLogsResponse,
  ZDeleteLogsResponse,
  ZToggleLoggingResponse,
  type LogCategory,
  type LogLevel,
  type TAdminLogsResponse,
} from '@securering/contract';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export interface LogsFilter {
  category: LogCategory | '';
  level: LogLevel | '';
  hideTechnical: boolean;
  search: string;
  offset: number;
}

export const logsKeys = {
  all: ['admin', 'logs'] as const,
  page: (filter: LogsFilter) => ['admin', 'logs', filter] as const,
};

/** The query string of GET /api/admin/logs.php for a filter. */
export function logsQueryString(filter: LogsFilter): string {
  const params = new URLSearchParams({ limit: String(LOG_PAGE_SIZE), offset: String(filter.offset) });
  if (filter.category) params.set('category', filter.category);
  if (filter.level) params.set('level', filter.level);
  if (filter.hideTechnical) params.set('hide_technical', '1');
  if (filter.search.trim()) params.set('search', filter.search.trim());
  return params.toString();
}

export function getLogsQueryOptions(filter: LogsFilter) {
  return queryOptions({
    queryKey: logsKeys.page(filter),
    queryFn: async ({ signal }) =>
      apiRequest(`/api/admin/logs.php?${logsQueryString(filter)}`, {
        auth: 'admin',
        schema: ZAdminLogsResponse,
        signal,
        fallbackError: 'Impossible de charger les données.',
      }),
    placeholderData: keepPreviousData,
  });
}

export const useLogs = (filter: LogsFilter) => useQuery(getLogsQueryOptions(filter));

/**
 * The logging switch, optimistic (spec 3 §4): every cached page shows the new state at once and
 * goes back to the previous one if the server refuses.
 */
export function useToggleLogging() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) =>
      apiRequest('/api/admin/logs.php', {
        method: 'POST',
        auth: 'admin',
        body: { action: 'toggle_logging', enabled },
        schema: ZToggleLoggingResponse,
      }),
    onMutate: async (enabled) => {
      await client.cancelQueries({ queryKey: logsKeys.all });
      const previous = client.getQueriesData<TAdminLogsResponse>({ queryKey: logsKeys.all });
      client.setQueriesData<TAdminLogsResponse>({ queryKey: logsKeys.all }, (data) =>
        data ? { ...data, logging_enabled: enabled } : data,
      );
      return { previous };
    },
    onError: (_error, _enabled, context) => {
      for (const [key, data] of context?.previous ?? []) client.setQueryData(key, data);
    },
    onSettled: () => client.invalidateQueries({ queryKey: logsKeys.all }),
  });
}

export function useClearLogs() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { category: LogCategory | 'all'; level?: LogLevel }) =>
      apiRequest('/api/admin/logs.php', {
        method: 'POST',
        auth: 'admin',
        body: { action: 'clear_logs', ...body },
        schema: ZDeleteLogsResponse,
        fallbackError: 'Impossible de supprimer les logs.',
      }),
    onSettled: () => client.invalidateQueries({ queryKey: logsKeys.all }),
  });
}

export function usePurgeLogs() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (days: number) =>
      apiRequest('/api/admin/logs.php', {
        method: 'POST',
        auth: 'admin',
        body: { action: 'purge_old', days },
        schema: ZDeleteLogsResponse,
        fallbackError: 'Impossible de purger les logs.',
      }),
    onSettled: () => client.invalidateQueries({ queryKey: logsKeys.all }),
  });
}
