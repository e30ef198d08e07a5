import type { Database } from '../../db/database';
import type { PlanSelectionsTable, SubscriptionsTable } from '../../db/schema';

export type SubscriptionRow = SubscriptionsTable;
export type PlanSelectionRow = PlanSelectionsTable;

export class SubscriptionRepository {
  constructor(private readonly db: Database) {}

  findById(id: string, trx: Database = this.db): Promise<SubscriptionRow | undefined> {
    return trx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The subscription giving access now: active and not past its end. */
  findCurrent(
    customerId: string,
    nowIso: string,
    trx: Database = this.db,
  ): Promise<SubscriptionRow | undefined> {
    return trx
      .selectFrom('subscriptions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('status', '=', 'active')
      .where('expires_at', '>', nowIso)
      .orderBy('expires_at', 'desc')
      .executeTakeFirst();
  }

  /** The most recent subscription whatever its state (for the dashboard after it lapsed). */
  findLatest(customerId: string, trx: Database = this.db): Promise<SubscriptionRow | undefined> {
    return trx
      .selectFrom('subscriptions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /**
   * The customer's subscriptions that still hold a place or may still be charged: active (running or
   * lapsed), suspended, and expired ones whose provider may still renew them.
   */
  findOpen(customerId: string, trx: Database = this.db): Promise<SubscriptionRow[]> {
    return trx
      .selectFrom('subscriptions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where((eb) =>
        eb.or([
          eb('status', 'in', ['active', 'suspended']),
          eb.and([
            eb('status', '=', 'expired'),
            eb('auto_renew', '=', 1),
            eb('provider_subscription_id', 'is not', null),
          ]),
        ]),
      )
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Whether the customer holds an active subscription other than `exceptId`. */
  async hasOtherActive(customerId: string, exceptId: string, trx: Database = this.db): Promise<boolean> {
    const row = await trx
      .selectFrom('subscriptions')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('status', '=', 'active')
      .where('id', '!=', exceptId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Every subscription of the customer a provider renews (before the customer is deleted). */
  findProviderRenewed(customerId: string, trx: Database = this.db): Promise<SubscriptionRow[]> {
    return trx
      .selectFrom('subscriptions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('provider_subscription_id', 'is not', null)
      .where('status', '!=', 'cancelled')
      .execute();
  }

  /** Moves a subscription on only if it is still in `from` (true for exactly one caller). */
  async transition(
    id: string,
    from: SubscriptionRow['status'],
    changes: Partial<Omit<SubscriptionRow, 'id' | 'created_at'>>,
    trx: Database = this.db,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('subscriptions')
      .set(changes)
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  findByProviderRef(
    provider: string,
    providerSubscriptionId: string,
    trx: Database = this.db,
  ): Promise<SubscriptionRow | undefined> {
    return trx
      .selectFrom('subscriptions')
      .selectAll()
      .where('provider', '=', provider)
      .where('provider_subscription_id', '=', providerSubscriptionId)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
  }

  async insert(row: SubscriptionRow, trx: Database = this.db): Promise<void> {
    await trx.insertInto('subscriptions').values(row).execute();
  }

  async update(
    id: string,
    changes: Partial<Omit<SubscriptionRow, 'id' | 'created_at'>>,
    trx: Database = this.db,
  ): Promise<void> {
    await trx.updateTable('subscriptions').set(changes).where('id', '=', id).execute();
  }

  /** Active subscriptions whose end has passed, beyond a grace period for providers that renew. */
  async expireLapsed(
    nowIso: string,
    renewingGraceIso: string,
  ): Promise<Array<{ id: string; customer_id: string }>> {
    const rows = await this.db
      .selectFrom('subscriptions')
      .select(['id', 'customer_id'])
      .where('status', '=', 'active')
      .where((eb) =>
        eb.or([
          eb.and([eb('auto_renew', '=', 0), eb('expires_at', '<=', nowIso)]),
          eb.and([eb('auto_renew', '=', 1), eb('expires_at', '<=', renewingGraceIso)]),
        ]),
      )
      .execute();
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    await this.db
      .updateTable('subscriptions')
      .set({ status: 'expired', updated_at: nowIso })
      .where('id', 'in', ids)
      .where('status', '=', 'active')
      .execute();
    return rows;
  }

  /** Non-renewing subscriptions ending before `beforeIso` that have not been reminded yet. */
  findDueReminders(nowIso: string, beforeIso: string): Promise<SubscriptionRow[]> {
    return this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('status', '=', 'active')
      .where('auto_renew', '=', 0)
      .where('reminder_sent_at', 'is', null)
      .where('expires_at', '>', nowIso)
      .where('expires_at', '<=', beforeIso)
      .execute();
  }

  /** Claims the reminder for this instance: true for exactly one caller. */
  async claimReminder(id: string, nowIso: string): Promise<boolean> {
    const result = await this.db
      .updateTable('subscriptions')
      .set({ reminder_sent_at: nowIso })
      .where('id', '=', id)
      .where('reminder_sent_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  findSelection(customerId: string): Promise<PlanSelectionRow | undefined> {
    return this.db
      .selectFrom('plan_selections')
      .selectAll()
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
  }

  findVisitorSelection(visitorHash: string): Promise<PlanSelectionRow | undefined> {
    return this.db
      .selectFrom('plan_selections')
      .selectAll()
      .where('visitor_hash', '=', visitorHash)
      .executeTakeFirst();
  }

  async upsertSelection(
    owner: { customerId: string } | { visitorHash: string },
    values: Pick<PlanSelectionRow, 'plan_id' | 'billing_cycle' | 'video_option'>,
    id: string,
    nowIso: string,
  ): Promise<void> {
    const column = 'customerId' in owner ? 'customer_id' : 'visitor_hash';
    await this.db
      .insertInto('plan_selections')
      .values({
        id,
        customer_id: 'customerId' in owner ? owner.customerId : null,
        visitor_hash: 'visitorHash' in owner ? owner.visitorHash : null,
        ...values,
        created_at: nowIso,
        updated_at: nowIso,
      })
      .onConflict((oc) => oc.column(column).doUpdateSet({ ...values, updated_at: nowIso }))
      .execute();
  }

  /** Deletes anonymous visitors' selections not updated since `beforeIso`; returns how many. */
  async deleteStaleVisitorSelections(beforeIso: string): Promise<number> {
    const result = await this.db
      .deleteFrom('plan_selections')
      .where('customer_id', 'is', null)
      .where('updated_at', '<', beforeIso)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deleteSelection(customerId: string): Promise<void> {
    await this.db.deleteFrom('plan_selections').where('customer_id', '=', customerId).execute();
  }
}
