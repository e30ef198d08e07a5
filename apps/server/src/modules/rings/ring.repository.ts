import type { Database } from '../../db/database';
import type { RingMembersTable, RingsTable } from '../../db/schema';

export type RingRow = RingsTable;
export type RingMemberRow = RingMembersTable;

export class RingRepository {
  constructor(private readonly db: Database) {}

  findRingById(id: string): Promise<RingRow | undefined> {
    return this.db.selectFrom('rings').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findMemberById(id: string): Promise<RingMemberRow | undefined> {
    return this.db.selectFrom('ring_members').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Rings follow their owner's plan: limits and quota change with the subscription. */
  async updatePlanForCustomer(
    customerId: string,
    planSlug: string,
    storageQuotaBytes: number,
    nowIso: string,
    trx: Database = this.db,
  ): Promise<void> {
    await trx
      .updateTable('rings')
      .set({ plan_slug: planSlug, storage_quota_bytes: storageQuotaBytes, updated_at: nowIso })
      .where('customer_id', '=', customerId)
      .execute();
  }
}
