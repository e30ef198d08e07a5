import { sql, type Kysely } from 'kysely';

/** Note appended to a subscription this migration ends. */
export const DEDUPED_NOTE =
  'Terminé à la mise à jour : un client n’a qu’un abonnement actif (le plus récent est gardé)';

/**
 * Billing that never charges twice (issue 25):
 * - `payment_provider_actions`: calls the provider must receive (cancel a replaced Stripe
 *   subscription, refund a charge for one), written in the same transaction as the local change and
 *   run after the commit; a failed call stays `pending` and the lifecycle job retries it. No foreign
 *   key: an action outlives the deletion of its customer.
 * - `payments.flag`: why the back office must look at a payment (`replaced_subscription_paid`).
 * - One active subscription per customer: a partial unique index. Existing duplicates are resolved
 *   first, deterministically: the newest (created_at, then id) stays active, the others are
 *   cancelled, and their Stripe subscriptions are queued for cancellation.
 */
interface Tables {
  subscriptions: {
    id: string;
    customer_id: string;
    status: string;
    provider: string;
    provider_subscription_id: string | null;
    notes: string;
    expires_at: string;
    created_at: string;
    cancelled_at: string | null;
    auto_renew: number;
    updated_at: string;
  };
  payment_provider_actions: {
    id: string;
    provider: string;
    action: string;
    reference: string;
    customer_id: string | null;
    subscription_id: string | null;
    payment_id: string | null;
    details: string;
    status: string;
    attempts: number;
    last_error: string | null;
    created_at: string;
    updated_at: string;
    done_at: string | null;
  };
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>;
  await db.schema
    .createTable('payment_provider_actions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('subscription_id', 'text')
    .addColumn('payment_id', 'text')
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('done_at', 'text')
    .execute();
  await db.schema
    .createIndex('payment_provider_actions_ref_idx')
    .on('payment_provider_actions')
    .columns(['provider', 'action', 'reference'])
    .unique()
    .execute();
  await db.schema
    .createIndex('payment_provider_actions_status_idx')
    .on('payment_provider_actions')
    .column('status')
    .execute();
  await db.schema.alterTable('payments').addColumn('flag', 'text').execute();

  const nowIso = new Date().toISOString();
  const actives = await db
    .selectFrom('subscriptions')
    .select(['id', 'customer_id', 'provider', 'provider_subscription_id', 'notes', 'expires_at'])
    .where('status', '=', 'active')
    .orderBy('customer_id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const kept = new Set<string>();
  let n = 0;
  for (const row of actives) {
    if (!kept.has(row.customer_id)) {
      kept.add(row.customer_id);
      continue;
    }
    await db
      .updateTable('subscriptions')
      .set({
        status: row.expires_at > nowIso ? 'cancelled' : 'expired',
        cancelled_at: nowIso,
        auto_renew: 0,
        notes: row.notes ? `${row.notes}\n${DEDUPED_NOTE}` : DEDUPED_NOTE,
        updated_at: nowIso,
      })
      .where('id', '=', row.id)
      .execute();
    if (row.provider === 'stripe' && row.provider_subscription_id) {
      n += 1;
      await db
        .insertInto('payment_provider_actions')
        .values({
          id: `migration-20261129-${String(n).padStart(6, '0')}-${row.id}`,
          provider: 'stripe',
          action: 'cancel_subscription',
          reference: row.provider_subscription_id,
          customer_id: row.customer_id,
          subscription_id: row.id,
          payment_id: null,
          details: JSON.stringify({ reason: 'migration' }),
          status: 'pending',
          attempts: 0,
          last_error: null,
          created_at: nowIso,
          updated_at: nowIso,
          done_at: null,
        })
        .onConflict((oc) => oc.columns(['provider', 'action', 'reference']).doNothing())
        .execute();
    }
  }

  await db.schema
    .createIndex('subscriptions_one_active_idx')
    .on('subscriptions')
    .column('customer_id')
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('subscriptions_one_active_idx').execute();
  await db.schema.alterTable('payments').dropColumn('flag').execute();
  await db.schema.dropTable('payment_provider_actions').execute();
}
