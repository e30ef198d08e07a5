import type { PaymentFlag, TransactionStatus } from '@securering/contract';
import type { Database } from '../../db/database';

/** Filters of the list and the export; dates are ISO instants, `before` excluded. */
export interface TransactionFilters {
  provider?: string | undefined;
  status?: TransactionStatus | undefined;
  fromIso?: string | undefined;
  beforeIso?: string | undefined;
}

/** A payment with its customer and the state of its subscription. */
export interface TransactionRow {
  id: string;
  customer_id: string;
  first_name: string;
  last_name: string;
  company: string;
  email: string;
  amount_cents: number;
  currency: string;
  provider: string;
  transaction_id: string | null;
  provider_order_id: string | null;
  status: string;
  created_at: string;
  plan_name: string;
  current_plan_name: string | null;
  billing_cycle: 'monthly' | 'yearly';
  sub_status: string | null;
  sub_expires_at: string | null;
  flag?: PaymentFlag | null;
}

/** Payments as the transactions tab lists and exports them. */
export class AdminTransactionsRepository {
  constructor(private readonly db: Database) {}

  private filtered(f: TransactionFilters) {
    return this.db
      .selectFrom('payments as p')
      .innerJoin('customers as c', 'c.id', 'p.customer_id')
      .$if(Boolean(f.provider), (q) => q.where('p.provider', '=', f.provider!))
      .$if(Boolean(f.status), (q) => q.where('p.status', '=', f.status!))
      .$if(Boolean(f.fromIso), (q) => q.where('p.created_at', '>=', f.fromIso!))
      .$if(Boolean(f.beforeIso), (q) => q.where('p.created_at', '<', f.beforeIso!));
  }

  async count(filters: TransactionFilters): Promise<number> {
    const row = await this.filtered(filters)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Newest first; without a limit, every matching row (the CSV export). */
  async find(
    filters: TransactionFilters,
    page?: { limit: number; offset: number },
  ): Promise<TransactionRow[]> {
    let query = this.filtered(filters)
      .leftJoin('subscriptions as s', 's.id', 'p.subscription_id')
      .leftJoin('plans as pl', 'pl.id', 'p.plan_id')
      .select([
        'p.id',
        'p.customer_id',
        'c.first_name',
        'c.last_name',
        'c.company',
        'c.email',
        'p.amount_cents',
        'p.currency',
        'p.provider',
        'p.transaction_id',
        'p.provider_order_id',
        'p.status',
        'p.created_at',
        'p.plan_name',
        'pl.name as current_plan_name',
        'p.billing_cycle',
        's.status as sub_status',
        's.expires_at as sub_expires_at',
        'p.flag',
      ])
      .orderBy('p.created_at', 'desc')
      .orderBy('p.id', 'desc');
    if (page) query = query.limit(page.limit).offset(page.offset);
    return (await query.execute()) as TransactionRow[];
  }
}
