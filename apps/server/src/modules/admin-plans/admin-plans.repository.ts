import type { Database } from '../../db/database';
import type { PlansTable } from '../../db/schema';

export interface PlanSubscriptionCounts {
  /** Subscriptions giving access now (active, not ended). */
  current: number;
  /** Every subscription referencing the plan. */
  total: number;
}

/** The back office's writes on plans and the subscription counts it shows beside them. */
export class AdminPlansRepository {
  constructor(private readonly db: Database) {}

  async insert(row: PlansTable): Promise<void> {
    await this.db.insertInto('plans').values(row).execute();
  }

  async update(id: string, changes: Partial<Omit<PlansTable, 'id' | 'created_at'>>): Promise<void> {
    await this.db.updateTable('plans').set(changes).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<number> {
    const result = await this.db.deleteFrom('plans').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Sets each plan's sort_order to its position in `ids` (1, 2, …) in one transaction. */
  async setOrder(ids: readonly string[], nowIso: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const [index, id] of ids.entries()) {
        await trx
          .updateTable('plans')
          .set({ sort_order: index + 1, updated_at: nowIso })
          .where('id', '=', id)
          .execute();
      }
    });
  }

  /** Slugs starting with `base`, to pick a free one. */
  async findSlugsLike(base: string): Promise<string[]> {
    const rows = await this.db.selectFrom('plans').select('slug').where('slug', 'like', `${base}%`).execute();
    return rows.map((r) => r.slug);
  }

  async maxSortOrder(): Promise<number> {
    const row = await this.db
      .selectFrom('plans')
      .select((eb) => eb.fn.max<number | null>('sort_order').as('max'))
      .executeTakeFirst();
    return Number(row?.max ?? 0);
  }

  async countSubscriptions(planId: string): Promise<number> {
    const row = await this.db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('plan_id', '=', planId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Per plan id: subscriptions active now and all subscriptions. */
  async subscriptionCounts(nowIso: string): Promise<Map<string, PlanSubscriptionCounts>> {
    const [totals, current] = await Promise.all([
      this.db
        .selectFrom('subscriptions')
        .select(['plan_id', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('plan_id')
        .execute(),
      this.db
        .selectFrom('subscriptions')
        .select(['plan_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', '=', 'active')
        .where('expires_at', '>', nowIso)
        .groupBy('plan_id')
        .execute(),
    ]);
    const counts = new Map<string, PlanSubscriptionCounts>();
    for (const row of totals) counts.set(row.plan_id, { current: 0, total: Number(row.n) });
    for (const row of current) {
      const entry = counts.get(row.plan_id) ?? { current: 0, total: 0 };
      entry.current = Number(row.n);
      counts.set(row.plan_id, entry);
    }
    return counts;
  }
}

/** True when the error is a foreign-key violation on either dialect. */
export function isForeignKeyViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { code?: string }).code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
