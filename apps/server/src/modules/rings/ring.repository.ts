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

  findRingsByCustomer(customerId: string): Promise<RingRow[]> {
    return this.db
      .selectFrom('rings')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  findMembers(ringId: string): Promise<RingMemberRow[]> {
    return this.db
      .selectFrom('ring_members')
      .selectAll()
      .where('ring_id', '=', ringId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Bytes stored in a Ring's file space. */
  async storageUsed(ringId: string): Promise<number> {
    const row = await this.db
      .selectFrom('ring_files')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), eb.lit(0)).as('used'))
      .where('ring_id', '=', ringId)
      .executeTakeFirstOrThrow();
    return Number(row.used);
  }

  /** Invited or active users of all the customer's Rings, owners excluded: what the plan's user limit counts. */
  async countSeats(customerId: string): Promise<number> {
    const row = await this.db
      .selectFrom('ring_members')
      .innerJoin('rings', 'rings.id', 'ring_members.ring_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('rings.customer_id', '=', customerId)
      .where('ring_members.role', '!=', 'owner')
      .where('ring_members.status', '!=', 'inactive')
      .executeTakeFirstOrThrow();
    return Number(row.n);
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
