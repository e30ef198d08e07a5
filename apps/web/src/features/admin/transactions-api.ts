import {
  MESSAGES,
  ZAdminTransactionsResponse,
  formatAmount,
  type TransactionGateway,
  type TransactionStatus,
} from '@securering/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ApiError, SESSION_EXPIRED_EVENT, apiRequest, clearSession, getToken } from '@/lib/api-client';
import { logToServer } from '@/lib/client-log';

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

/** "29,90 €", "12,00 $US": French format in the transaction's own currency. */
export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('fr-FR', { style: 'currency', currency: currency || 'EUR' })
      .format(amount)
      .replace(/\u202f|\u00a0/g, ' ');
  } catch {
    return `${formatAmount(amount)} ${currency}`;
  }
}

function filenameOf(disposition: string | null): string {
  const match = disposition ? /filename="?([^";]+)"?/i.exec(disposition) : null;
  return match?.[1] ?? `transactions-${new Date().toISOString().slice(0, 10)}.csv`;
}

/**
 * Downloads the server's CSV export with the admin bearer: fetch → blob → a temporary link.
 * Throws an ApiError with the French message on failure.
 */
export async function downloadTransactionsCsv(filters: TransactionFiltersState): Promise<void> {
  const token = getToken('admin');
  if (!token) throw new ApiError(MESSAGES.notAuthenticated, 401);
  const path = `/api/admin/transactions.php${transactionsQueryString(filters, { format: 'csv' })}`;
  let response: Response;
  try {
    response = await fetch(path, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/csv' } });
  } catch {
    throw new ApiError('Erreur de connexion au serveur', 0);
  }
  if (!response.ok) {
    if (response.status === 401) {
      clearSession('admin');
      window.dispatchEvent(new CustomEvent(SESSION_EXPIRED_EVENT, { detail: 'admin' }));
      throw new ApiError(MESSAGES.sessionExpired, 401);
    }
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    const message = body.error ?? `HTTP ${response.status}: Réponse vide du serveur`;
    logToServer('error', 'api', 'Échec d’une requête authentifiée', {
      url: path,
      error: message,
      status: response.status,
    });
    throw new ApiError(message, response.status, body);
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filenameOf(response.headers.get('Content-Disposition'));
  link.style.display = 'none';
  document.body.appendChild(link);
  try {
    link.click();
  } finally {
    link.remove();
    // Revoke after the click has been handled, or some browsers cancel the download.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}
