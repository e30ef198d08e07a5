import {
  PAYMENT_FLAG_LABELS,
  PAYMENT_STATUS_LABELS,
  TRANSACTION_GATEWAYS,
  TRANSACTION_GATEWAY_LABELS,
  TRANSACTION_STATUSES,
  formatMoney,
  type PaymentComputedStatus,
  type TAdminTransaction,
  type TransactionGateway,
  type TransactionStatus,
} from '@securering/contract';
import { Download, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { Input, NativeSelect } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { TableScroll } from '@/components/ui/table-scroll';
import { useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { formatDateTimeShort } from '@/lib/dates';
import {
  TRANSACTIONS_PAGE_SIZE,
  downloadTransactionsCsv,
  useAdminTransactions,
  type TransactionFiltersState,
} from './transactions-api';

const STATUS_VARIANT: Record<
  PaymentComputedStatus,
  'success' | 'warning' | 'danger' | 'neutral' | 'default'
> = {
  completed: 'success',
  completed_expired: 'neutral',
  pending: 'warning',
  failed: 'danger',
  cancelled: 'neutral',
  refunded: 'default',
};

/** Labels of the status filter (stored statuses, French like the badges). */
const STATUS_FILTER_LABELS: Record<TransactionStatus, string> = {
  completed: PAYMENT_STATUS_LABELS.completed,
  pending: PAYMENT_STATUS_LABELS.pending,
  failed: PAYMENT_STATUS_LABELS.failed,
  cancelled: PAYMENT_STATUS_LABELS.cancelled,
  refunded: PAYMENT_STATUS_LABELS.refunded,
};

const gatewayLabel = (provider: string) =>
  TRANSACTION_GATEWAY_LABELS[provider as TransactionGateway] ?? provider;

const INITIAL_FILTERS: TransactionFiltersState = { gateway: 'all', status: 'all', from: '', to: '' };

/** "Transactions": history table, gateway / status / date filters and the CSV export. */
export function TransactionsTab() {
  const [filters, setFilters] = useState<TransactionFiltersState>(INITIAL_FILTERS);
  const [offset, setOffset] = useState(0);
  const [exporting, setExporting] = useState(false);
  const notify = useToast();
  const transactions = useAdminTransactions(filters, offset);

  const update = (changes: Partial<TransactionFiltersState>) => {
    setFilters((current) => ({ ...current, ...changes }));
    setOffset(0);
  };

  const handleExport = async () => {
    setExporting(true);
    try {
      await downloadTransactionsCsv(filters);
    } catch (error) {
      notify({
        title: 'Impossible d’exporter les transactions.',
        description: error instanceof ApiError ? error.message : undefined,
        variant: 'error',
      });
    } finally {
      setExporting(false);
    }
  };

  const total = transactions.data?.meta.total ?? 0;
  const rows = transactions.data?.data ?? [];

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-3">
        <CardTitle>Historique des transactions</CardTitle>
        <div className="flex gap-2">
          <Button
            variant="ghost"
            size="sm"
            onClick={() => void transactions.refetch()}
            disabled={transactions.isFetching}
          >
            <RefreshCw aria-hidden /> Actualiser
          </Button>
          <Button variant="outline" size="sm" onClick={() => void handleExport()} disabled={exporting}>
            <Download aria-hidden /> {exporting ? 'Export…' : 'Exporter (CSV)'}
          </Button>
        </div>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <Field id="tx-gateway" label="Passerelle">
            <NativeSelect
              id="tx-gateway"
              value={filters.gateway}
              onChange={(e) => update({ gateway: e.target.value as TransactionGateway })}
            >
              {TRANSACTION_GATEWAYS.map((g) => (
                <option key={g} value={g}>
                  {TRANSACTION_GATEWAY_LABELS[g]}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Field id="tx-status" label="Statut">
            <NativeSelect
              id="tx-status"
              value={filters.status}
              onChange={(e) => update({ status: e.target.value as TransactionFiltersState['status'] })}
            >
              <option value="all">Tous</option>
              {TRANSACTION_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_FILTER_LABELS[s]}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Field id="tx-from" label="Du">
            <Input
              id="tx-from"
              type="date"
              value={filters.from}
              max={filters.to || undefined}
              onChange={(e) => update({ from: e.target.value })}
            />
          </Field>
          <Field id="tx-to" label="Au">
            <Input
              id="tx-to"
              type="date"
              value={filters.to}
              min={filters.from || undefined}
              onChange={(e) => update({ to: e.target.value })}
            />
          </Field>
        </div>

        {transactions.isPending ? (
          <Spinner label="Chargement des transactions…" />
        ) : transactions.isError ? (
          <LoadError message={transactions.error.message} onRetry={() => void transactions.refetch()} />
        ) : rows.length === 0 ? (
          <p className="py-6 text-center text-sm text-slate-600">Aucune transaction trouvée.</p>
        ) : (
          <>
            <TableScroll label="Historique des transactions">
              <table className="w-full min-w-[900px] text-left text-sm">
                <thead className="border-b border-slate-200 text-slate-500">
                  <tr>
                    <th className="py-2 pr-3 font-medium">Date</th>
                    <th className="py-2 pr-3 font-medium">Client</th>
                    <th className="py-2 pr-3 font-medium">Plan</th>
                    <th className="py-2 pr-3 text-right font-medium">Montant</th>
                    <th className="py-2 pr-3 font-medium">Passerelle</th>
                    <th className="py-2 pr-3 font-medium">Statut</th>
                    <th className="py-2 font-medium">Référence</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((t) => (
                    <TransactionRow key={t.id} transaction={t} />
                  ))}
                </tbody>
              </table>
            </TableScroll>
            <div className="flex flex-wrap items-center justify-between gap-2 text-sm text-slate-600">
              <span>
                {offset + 1}–{offset + rows.length} sur {total} transaction{total > 1 ? 's' : ''}
              </span>
              <div className="flex gap-2">
                <Button
                  variant="outline"
                  size="sm"
                  disabled={offset === 0 || transactions.isFetching}
                  onClick={() => setOffset((o) => Math.max(0, o - TRANSACTIONS_PAGE_SIZE))}
                >
                  Précédent
                </Button>
                <Button
                  variant="outline"
                  size="sm"
                  disabled={offset + rows.length >= total || transactions.isFetching}
                  onClick={() => setOffset((o) => o + TRANSACTIONS_PAGE_SIZE)}
                >
                  Suivant
                </Button>
              </div>
            </div>
          </>
        )}
      </CardContent>
    </Card>
  );
}

function TransactionRow({ transaction: t }: { transaction: TAdminTransaction }) {
  return (
    <tr className="border-b border-slate-100 align-top">
      <td className="whitespace-nowrap py-2 pr-3">{formatDateTimeShort(t.created_at)}</td>
      <td className="py-2 pr-3">
        <div className="font-medium">{t.customer_name}</div>
        <div className="text-xs text-slate-500">{t.customer_email}</div>
      </td>
      <td className="py-2 pr-3">
        <div>{t.plan_name || '—'}</div>
        <div className="text-xs text-slate-500">{t.billing_cycle === 'yearly' ? 'Annuel' : 'Mensuel'}</div>
      </td>
      <td className="whitespace-nowrap py-2 pr-3 text-right font-medium">
        {formatMoney(t.amount, t.currency)}
      </td>
      <td className="py-2 pr-3">{gatewayLabel(t.payment_provider)}</td>
      <td className="py-2 pr-3">
        <Badge variant={STATUS_VARIANT[t.computed_status]}>{PAYMENT_STATUS_LABELS[t.computed_status]}</Badge>
        {t.flag ? (
          <div className="mt-1">
            <Badge variant="warning">{PAYMENT_FLAG_LABELS[t.flag]}</Badge>
          </div>
        ) : null}
      </td>
      <td className="max-w-[14rem] truncate py-2 font-mono text-xs" title={t.transaction_id ?? undefined}>
        {t.transaction_id ?? '—'}
      </td>
    </tr>
  );
}
