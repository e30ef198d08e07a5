import { sql } from 'kysely';
import type { Database } from '../../db/database';
import type { SystemLogsTable } from '../../db/schema';

// Times are ISO-8601 UTC text: comparing as strings orders them, and the first 7 (10) characters
// are the month (day) on both dialects. Raw expressions without bound parameters, so PostgreSQL
// sees the select and the group by as the same expression.
const paidAt = sql<string>`coalesce(payments.completed_at, payments.created_at)`;
const paidMonth = sql<string>`substr(coalesce(payments.completed_at, payments.created_at), 1, 7)`;
const customerDay = sql<string>`substr(customers.created_at, 1, 10)`;

export type ActivityRow = Pick<SystemLogsTable, 'id' | 'created_at' | 'level' | 'category' | 'message'>;

/** The aggregates of the back-office dashboard. All SQL runs on SQLite and PostgreSQL. */
export class AdminStatsRepository {
  constructor(private readonly db: Database) {}

  async countCustomers(): Promise<number> {
    const row = await this.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Subscriptions with status active that have not expired yet, and the customers holding one. */
  async countActiveSubscriptions(nowIso: string): Promise<{ subscriptions: number; customers: number }> {
    const row = await this.db
      .selectFrom('subscriptions')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.count<number>('customer_id').distinct().as('customers'),
      ])
      .where('status', '=', 'active')
      .where('expires_at', '>', nowIso)
      .executeTakeFirstOrThrow();
    return { subscriptions: Number(row.n), customers: Number(row.customers) };
  }

  /** Completed payments paid at or after `sinceIso` (all of them without it): cents and count. */
  async completedPayments(sinceIso?: string): Promise<{ cents: number; count: number }> {
    let query = this.db
      .selectFrom('payments')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), eb.lit(0)).as('cents'),
        eb.fn.countAll<number>().as('n'),
      ])
      .where('status', '=', 'completed');
    if (sinceIso) query = query.where(paidAt, '>=', sinceIso);
    const row = await query.executeTakeFirstOrThrow();
    return { cents: Number(row.cents), count: Number(row.n) };
  }

  /** Completed payments per month ('YYYY-MM') from `sinceIso`; months without payments are absent. */
  async revenueByMonth(sinceIso: string): Promise<Array<{ month: string; cents: number }>> {
    const rows = await this.db
      .selectFrom('payments')
      .select((eb) => [paidMonth.as('month'), eb.fn.sum<number>('amount_cents').as('cents')])
      .where('status', '=', 'completed')
      .where(paidAt, '>=', sinceIso)
      .groupBy(paidMonth)
      .execute();
    return rows.map((r) => ({ month: r.month, cents: Number(r.cents) }));
  }

  /** Accounts created per UTC day ('YYYY-MM-DD') from `sinceIso`; empty days are absent. */
  async newCustomersByDay(sinceIso: string): Promise<Array<{ day: string; count: number }>> {
    const rows = await this.db
      .selectFrom('customers')
      .select((eb) => [customerDay.as('day'), eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', sinceIso)
      .groupBy(customerDay)
      .execute();
    return rows.map((r) => ({ day: r.day, count: Number(r.n) }));
  }

  /** Active Rings whose owner holds a current subscription (active and not expired). */
  async countActiveRings(nowIso: string): Promise<number> {
    const row = await this.db
      .selectFrom('rings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('rings.is_active', '=', 1)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('subscriptions')
            .select('subscriptions.id')
            .whereRef('subscriptions.customer_id', '=', 'rings.customer_id')
            .where('subscriptions.status', '=', 'active')
            .where('subscriptions.expires_at', '>', nowIso),
        ),
      )
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countMessagesSince(sinceIso: string): Promise<number> {
    const row = await this.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_at', '>=', sinceIso)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** System log entries since a time, by levels, category and message prefix (no LIKE wildcards in it). */
  async countLogsSince(
    sinceIso: string,
    filter: { levels: Array<SystemLogsTable['level']>; category?: string; messagePrefix?: string },
  ): Promise<number> {
    let query = this.db
      .selectFrom('system_logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_at', '>=', sinceIso)
      .where('level', 'in', filter.levels);
    if (filter.category) query = query.where('category', '=', filter.category);
    if (filter.messagePrefix) query = query.where('message', 'like', `${filter.messagePrefix}%`);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async recentActivity(limit: number): Promise<ActivityRow[]> {
    return this.db
      .selectFrom('system_logs')
      .select(['id', 'created_at', 'level', 'category', 'message'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Bytes of every Ring file (what object storage outside DATA_DIR holds). */
  async ringFileBytes(): Promise<number> {
    const row = await this.db
      .selectFrom('ring_files')
      // sum(bigint) is numeric on PostgreSQL, which pg returns as a string.
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('size_bytes'), eb.lit(0)).as('bytes'))
      .executeTakeFirstOrThrow();
    return Number(row.bytes);
  }
}
