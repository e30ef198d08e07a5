import type { Database } from '../../db/database';
import type { PlansTable } from '../../db/schema';

export type PlanRow = PlansTable;

export class PlanRepository {
  constructor(private readonly db: Database) {}

  findActive(): Promise<PlanRow[]> {
    return this.db
      .selectFrom('plans')
      .selectAll()
      .where('is_active', '=', 1)
      .orderBy('sort_order')
      .orderBy('created_at')
      .execute();
  }

  findAll(): Promise<PlanRow[]> {
    return this.db.selectFrom('plans').selectAll().orderBy('sort_order').orderBy('created_at').execute();
  }

  findById(id: string): Promise<PlanRow | undefined> {
    return this.db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
  }
}
