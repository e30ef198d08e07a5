import type { Database } from '../../db/database';
import type { PaymentsTable } from '../../db/schema';

export type PaymentRow = PaymentsTable;

export class PaymentRepository {
  constructor(private readonly db: Database) {}

  findById(id: string, trx: Database = this.db): Promise<PaymentRow | undefined> {
    return trx.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByOrder(provider: string, orderId: string, trx: Database = this.db): Promise<PaymentRow | undefined> {
    return trx
      .selectFrom('payments')
      .selectAll()
      .where('provider', '=', provider)
      .where('provider_order_id', '=', orderId)
      .executeTakeFirst();
  }

  findByTransaction(
    provider: string,
    transactionId: string,
    trx: Database = this.db,
  ): Promise<PaymentRow | undefined> {
    return trx
      .selectFrom('payments')
      .selectAll()
      .where('provider', '=', provider)
      .where('transaction_id', '=', transactionId)
      .executeTakeFirst();
  }

  async insert(row: PaymentRow, trx: Database = this.db): Promise<void> {
    await trx.insertInto('payments').values(row).execute();
  }

  async update(
    id: string,
    changes: Partial<Omit<PaymentRow, 'id' | 'created_at'>>,
    trx: Database = this.db,
  ): Promise<void> {
    await trx.updateTable('payments').set(changes).where('id', '=', id).execute();
  }

  /**
   * Moves a payment from one of `from` to `to`: true for exactly one caller, so a payment confirmed
   * twice (return page and webhook, or a webhook delivered twice) is activated once.
   */
  async transition(
    id: string,
    from: PaymentRow['status'][],
    changes: Partial<Omit<PaymentRow, 'id' | 'created_at'>> & { status: PaymentRow['status'] },
    trx: Database = this.db,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('payments')
      .set(changes)
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Checkouts nobody finished: pending for longer than the cut-off. */
  async cancelAbandoned(beforeIso: string, nowIso: string): Promise<number> {
    const result = await this.db
      .updateTable('payments')
      .set({ status: 'cancelled', failure_reason: 'Paiement abandonné', updated_at: nowIso })
      .where('status', '=', 'pending')
      .where('created_at', '<', beforeIso)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Claims a provider event for processing. 'duplicate': already processed (a replay);
   * 'in_progress': another delivery is processing it right now; 'claimed': ours to process.
   * A claim older than `staleBeforeIso` (a crash mid-processing) can be taken over.
   */
  async claimWebhookEvent(
    row: { id: string; provider: string; event_id: string; event_type: string; received_at: string },
    staleBeforeIso: string,
  ): Promise<{ outcome: 'claimed' | 'duplicate' | 'in_progress'; id: string }> {
    const inserted = await this.db
      .insertInto('webhook_events')
      .values({ ...row, processed_at: null })
      .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { outcome: 'claimed', id: row.id };
    const existing = await this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('provider', '=', row.provider)
      .where('event_id', '=', row.event_id)
      .executeTakeFirstOrThrow();
    if (existing.processed_at) return { outcome: 'duplicate', id: existing.id };
    const takeover = await this.db
      .updateTable('webhook_events')
      .set({ received_at: row.received_at })
      .where('id', '=', existing.id)
      .where('processed_at', 'is', null)
      .where('received_at', '<', staleBeforeIso)
      .executeTakeFirst();
    return { outcome: Number(takeover.numUpdatedRows) === 1 ? 'claimed' : 'in_progress', id: existing.id };
  }

  async markWebhookProcessed(id: string, nowIso: string): Promise<void> {
    await this.db.updateTable('webhook_events').set({ processed_at: nowIso }).where('id', '=', id).execute();
  }

  /** Processing failed: forget the claim so the provider's retry is processed. */
  async releaseWebhookEvent(id: string): Promise<void> {
    await this.db
      .deleteFrom('webhook_events')
      .where('id', '=', id)
      .where('processed_at', 'is', null)
      .execute();
  }
}
