import { ADMIN_CUSTOMER_MESSAGES, formatEuros, formatMoney } from '@securering/contract';
import { RefreshCw } from 'lucide-react';
import { LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { TableScroll } from '@/components/ui/table-scroll';
import { apiErrorMessage } from '@/lib/api-error-message';
import { formatDateTimeShort } from '@/lib/dates';
import { useCustomerPayments } from './clients-api';
import {
  BILLING_CYCLE_LABELS,
  PAYMENT_TYPE_LABELS,
  PROVIDER_LABELS,
  paymentBadge,
} from './clients-labels';

const M = ADMIN_CUSTOMER_MESSAGES;

/** "Paiements" tab of the edit card: the customer's payments and their summary (spec 3 §2.4). */
export function CustomerPayments({ customerId }: { customerId: string }) {
  const payments = useCustomerPayments(customerId);

  if (payments.isPending) return <Spinner label="Chargement des paiements…" />;
  if (payments.isError) {
    return (
      <LoadError
        title={M.paymentsLoadFailed}
        message={apiErrorMessage(payments.error, M.paymentsLoadFailed, M.connectionError)}
        onRetry={() => void payments.refetch()}
        refreshIcon
      />
    );
  }

  const { data, summary } = payments.data;
  return (
    <section aria-label="Paiements du client" className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h4 className="font-semibold">Paiements</h4>
        <Button
          variant="outline"
          size="sm"
          onClick={() => void payments.refetch()}
          disabled={payments.isFetching}
        >
          <RefreshCw aria-hidden className={payments.isFetching ? 'animate-spin' : undefined} /> Rafraîchir
        </Button>
      </div>
      <dl className="grid gap-3 sm:grid-cols-3">
        <div className="rounded-lg border border-slate-200 p-3">
          <dt className="text-sm text-slate-500">Total encaissé</dt>
          <dd className="text-xl font-bold">{formatEuros(summary.total_collected)}</dd>
        </div>
        <div className="rounded-lg border border-slate-200 p-3">
          <dt className="text-sm text-slate-500">Paiements réussis</dt>
          <dd className="text-xl font-bold text-emerald-700">{summary.completed_count}</dd>
        </div>
        <div className="rounded-lg border border-slate-200 p-3">
          <dt className="text-sm text-slate-500">Paiements échoués</dt>
          <dd className="text-xl font-bold text-red-700">{summary.failed_count}</dd>
        </div>
      </dl>

      {data.length === 0 ? (
        <p className="py-4 text-center text-sm text-slate-500">{M.paymentsEmpty}</p>
      ) : (
        <TableScroll label="Paiements du client">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 text-slate-500">
              <tr>
                <th className="py-2 pr-4 font-medium">Date</th>
                <th className="py-2 pr-4 font-medium">Plan</th>
                <th className="py-2 pr-4 font-medium">Cycle</th>
                <th className="py-2 pr-4 text-right font-medium">Montant</th>
                <th className="py-2 pr-4 font-medium">Fournisseur</th>
                <th className="py-2 pr-4 font-medium">Statut</th>
                <th className="py-2 pr-4 font-medium">Type</th>
                <th className="py-2 font-medium">Transaction</th>
              </tr>
            </thead>
            <tbody>
              {data.map((p) => {
                const badge = paymentBadge(p.computed_status);
                return (
                  <tr key={p.id} className="border-b border-slate-100 align-top">
                    <td className="whitespace-nowrap py-2 pr-4">{formatDateTimeShort(p.created_at)}</td>
                    <td className="py-2 pr-4">{p.plan_name || '—'}</td>
                    <td className="py-2 pr-4">{BILLING_CYCLE_LABELS[p.billing_cycle] ?? p.billing_cycle}</td>
                    <td className="whitespace-nowrap py-2 pr-4 text-right">
                      {p.currency.toUpperCase() === 'EUR'
                        ? p.amount_formatted
                        : formatMoney(p.amount, p.currency)}
                    </td>
                    <td className="py-2 pr-4">{PROVIDER_LABELS[p.payment_provider] ?? p.payment_provider}</td>
                    <td className="py-2 pr-4">
                      <Badge variant={badge.tone}>{badge.label}</Badge>
                      {p.failure_reason ? (
                        <p className="mt-1 text-xs text-red-700">
                          <span className="sr-only">Raison de l’échec&#8239;: </span>
                          {p.failure_reason}
                        </p>
                      ) : null}
                    </td>
                    <td className="py-2 pr-4">{PAYMENT_TYPE_LABELS[p.payment_type] ?? p.payment_type}</td>
                    <td className="py-2 font-mono text-xs break-all">{p.transaction_id ?? '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
