import {
  TRANSACTIONS_DEFAULT_LIMIT,
  type TAdminTransaction,
  type TAdminTransactionsQuery,
} from '@securering/contract';
import type { AppContext } from '../../app-context';
import { nextUtcDayIso } from '../../lib/utc-days';
import { toPaymentListing } from '../subscriptions/payment.policy';
import { transactionsToCsv } from './admin-transactions.csv';
import {
  AdminTransactionsRepository,
  type TransactionFilters,
  type TransactionRow,
} from './admin-transactions.repository';

/** Query filters to repository filters: UTC days, the `to` day included. */
export function toFilters(query: TAdminTransactionsQuery): TransactionFilters {
  return {
    provider: query.gateway && query.gateway !== 'all' ? query.gateway : undefined,
    status: query.status && query.status !== 'all' ? query.status : undefined,
    fromIso: query.from ? new Date(`${query.from}T00:00:00.000Z`).toISOString() : undefined,
    beforeIso: query.to ? nextUtcDayIso(query.to) : undefined,
  };
}

function customerName(row: TransactionRow): string {
  return `${row.first_name} ${row.last_name}`.trim() || row.company.trim() || row.email;
}

/** The history of money movements with their customers, as a page or as a CSV document. */
export class AdminTransactionsService {
  private readonly repo: AdminTransactionsRepository;

  constructor(private readonly ctx: AppContext) {
    this.repo = new AdminTransactionsRepository(ctx.db);
  }

  private toTransaction(row: TransactionRow, now: Date): TAdminTransaction & { reference: string } {
    const listing = toPaymentListing(row, now);
    return {
      id: row.id,
      customer_id: row.customer_id,
      customer_name: customerName(row),
      customer_email: row.email,
      amount: listing.amount,
      currency: row.currency.toUpperCase(),
      payment_provider: row.provider,
      transaction_id: row.transaction_id,
      status: row.status,
      computed_status: listing.computed_status,
      created_at: row.created_at,
      plan_name: listing.plan_name,
      billing_cycle: row.billing_cycle === 'yearly' ? 'yearly' : 'monthly',
      reference: row.transaction_id ?? row.provider_order_id ?? '',
      flag: row.flag ?? null,
    };
  }

  async list(query: TAdminTransactionsQuery): Promise<{
    data: TAdminTransaction[];
    meta: { total: number; limit: number; offset: number };
  }> {
    const filters = toFilters(query);
    const limit = query.limit ?? TRANSACTIONS_DEFAULT_LIMIT;
    const offset = query.offset ?? 0;
    const [rows, total] = await Promise.all([
      this.repo.find(filters, { limit, offset }),
      this.repo.count(filters),
    ]);
    const now = this.ctx.clock.now();
    const data = rows.map((row) => {
      const { reference: _reference, ...transaction } = this.toTransaction(row, now);
      return transaction;
    });
    return { data, meta: { total, limit, offset } };
  }

  /** Every matching transaction (no row limit), as the CSV document. */
  async exportCsv(query: TAdminTransactionsQuery): Promise<{ csv: string; count: number }> {
    const rows = await this.repo.find(toFilters(query));
    const now = this.ctx.clock.now();
    return { csv: transactionsToCsv(rows.map((row) => this.toTransaction(row, now))), count: rows.length };
  }
}
