import {
  ZAdminTransactionsResponse,
  type TransactionGateway,
  type TransactionStatus,
} from '@securering/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiDownload, apiRequest } from '@/lib/api-client';

export interface TransactionFiltersState {
  gateway: TransactionGateway;
  status: TransactionStatus | 'all';
  from: string;
  to: string;
}

export const TRANSACTIONS_PAGE_SIZE = 100;

/** The query string shared by the list and the export (empty filters left out). */
export function transactionsQueryString(
  filters: TransactionFiltersState,
  extra: Record<string, string> = {},
): string {
  const params = new URLSearchParams();
  if (filters.gateway !== 'all') params.set('gateway', filters.gateway);
  if (filters.status !== 'all') params.set('status', filters.status);
  if (filters.from) params.set('from', filters.from);
  if (filters.to) params.set('to', filters.to);
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function useAdminTransactions(filters: TransactionFiltersState, offset: number) {
  return useQuery({
    queryKey: ['admin', 'transactions', filters, offset],
    queryFn: async ({ signal }) =>
      apiRequest(
        `/api/admin/transactions.php${transactionsQueryString(filters, {
          limit: String(TRANSACTIONS_PAGE_SIZE),
          offset: String(offset),
        })}`,
        {
          auth: 'admin',
          schema: ZAdminTransactionsResponse,
          signal,
          fallbackError: 'Impossible de charger les données.',
        },
      ),
    placeholderData: keepPreviousData,
  });
}

function filenameOf(disposition: string | null): string {
  const match = disposition ? /filename="?([^";]+)"?/i.exec(disposition) : null;
  return match?.[1] ?? `transactions-${new Date().toISOString().slice(0, 10)}.csv`;
}

/** Downloads the server's CSV export with the admin bearer; throws an ApiError on failure. */
export function downloadTransactionsCsv(filters: TransactionFiltersState): Promise<void> {
  return apiDownload(`/api/admin/transactions.php${transactionsQueryString(filters, { format: 'csv' })}`, {
    auth: 'admin',
    accept: 'text/csv',
    filename: filenameOf,
  });
}
