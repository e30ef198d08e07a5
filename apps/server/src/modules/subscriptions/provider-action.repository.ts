import type { Database } from '../../db/database';
import type { PaymentProviderActionsTable } from '../../db/schema';

export type ProviderActionRow = PaymentProviderActionsTable;

/** The queue of calls payment providers must receive (all its SQL). */
export class ProviderActionRepository {
  constructor(private readonly db: Database) {}

  /** Queues an action once: the same action on the same provider object is never queued twice. */
  async queue(row: ProviderActionRow, trx: Database = this.db): Promise<void> {
    await trx
      .insertInto('payment_provider_actions')
      .values(row)
      .onConflict((oc) => oc.columns(['provider', 'action', 'reference']).doNothing())
      .execute();
  }

  find(
    provider: string,
    action: ProviderActionRow['action'],
    reference: string,
    trx: Database = this.db,
  ): Promise<ProviderActionRow | undefined> {
    return trx
      .selectFrom('payment_provider_actions')
      .selectAll()
      .where('provider', '=', provider)
      .where('action', '=', action)
      .where('reference', '=', reference)
      .executeTakeFirst();
  }

  /** Pending actions, oldest first; only `ids` when given. */
  findPending(ids?: string[], limit = 50): Promise<ProviderActionRow[]> {
    if (ids && ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('payment_provider_actions')
      .selectAll()
      .where('status', '=', 'pending')
      .$if(ids !== undefined, (qb) => qb.where('id', 'in', ids!))
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Pending actions for these references (the ids to run right after a commit). */
  async findPendingIds(
    refs: Array<{ provider: string; action: ProviderActionRow['action']; reference: string }>,
    trx: Database = this.db,
  ): Promise<string[]> {
    const ids: string[] = [];
    for (const ref of refs) {
      const row = await this.find(ref.provider, ref.action, ref.reference, trx);
      if (row && row.status === 'pending') ids.push(row.id);
    }
    return ids;
  }

  async markDone(id: string, nowIso: string): Promise<boolean> {
    const result = await this.db
      .updateTable('payment_provider_actions')
      .set((eb) => ({
        status: 'done',
        attempts: eb('attempts', '+', 1),
        last_error: null,
        done_at: nowIso,
        updated_at: nowIso,
      }))
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async markFailed(id: string, error: string, nowIso: string): Promise<void> {
    await this.db
      .updateTable('payment_provider_actions')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        last_error: error.slice(0, 1000),
        updated_at: nowIso,
      }))
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  }
}
