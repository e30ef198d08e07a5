import { sql, type ExpressionBuilder, type RawBuilder } from 'kysely';
import type { Database } from '../../db/database';
import type { CustomersTable, DB, PaymentsTable, PlansTable, SubscriptionsTable } from '../../db/schema';
import { containsIgnoringCase } from '../../db/text-search';

/** A customer row with the figures the back office list shows beside it. */
export type CustomerListRow = CustomersTable & {
  current_plan: string | null;
  total_spent_cents: number | string | null;
  rings_count: number | string | null;
};

export type SubscriptionWithPlan = SubscriptionsTable & {
  plan_name: string | null;
  plan_max_users: number | null;
  plan_features_chat: number | null;
  plan_features_voice: number | null;
  plan_features_video: number | null;
  plan_storage_bytes: number | null;
};

export type PaymentWithSubscription = PaymentsTable & {
  sub_status: SubscriptionsTable['status'] | null;
  sub_expires_at: string | null;
  current_plan_name: PlansTable['name'] | null;
};

/** What a customer owns beyond its own row, found before a deletion. */
export interface CustomerFootprint {
  ringIds: string[];
  memberIds: string[];
}

/** The back office's reads and writes on customers and what hangs off them (all SQL lives here). */
export class AdminCustomersRepository {
  constructor(private readonly db: Database) {}

  private withFigures(eb: ExpressionBuilder<DB, 'customers'>, nowIso: string) {
    return [
      eb
        .selectFrom('subscriptions')
        .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
        .select('plans.name')
        .whereRef('subscriptions.customer_id', '=', 'customers.id')
        .where('subscriptions.status', '=', 'active')
        .where('subscriptions.expires_at', '>', nowIso)
        .orderBy('subscriptions.expires_at', 'desc')
        .limit(1)
        .as('current_plan'),
      eb
        .selectFrom('payments')
        .select((p) => p.fn.coalesce(p.fn.sum<number>('payments.amount_cents'), p.lit(0)).as('s'))
        .whereRef('payments.customer_id', '=', 'customers.id')
        .where('payments.status', '=', 'completed')
        .as('total_spent_cents'),
      eb
        .selectFrom('rings')
        .select((r) => r.fn.countAll<number>().as('n'))
        .whereRef('rings.customer_id', '=', 'customers.id')
        .as('rings_count'),
    ] as const;
  }

  /** Newest first; `search` matches email, first or last name, full name or company, ignoring case. */
  async findPage(
    search: string,
    page: number,
    perPage: number,
    nowIso: string,
  ): Promise<{ rows: CustomerListRow[]; total: number }> {
    const base = this.db.selectFrom('customers').$if(search.length > 0, (qb) => {
      const like = (expr: RawBuilder<unknown>) => containsIgnoringCase(expr, search);
      return qb.where(
        () =>
          sql<boolean>`(${sql.join(
            [
              like(sql.ref('customers.email')),
              like(sql.ref('customers.first_name')),
              like(sql.ref('customers.last_name')),
              like(sql`${sql.ref('customers.first_name')} || ' ' || ${sql.ref('customers.last_name')}`),
              like(sql.ref('customers.company')),
            ],
            sql` or `,
          )})`,
      );
    });
    const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .selectAll('customers')
      .select((eb) => this.withFigures(eb, nowIso))
      .orderBy('customers.created_at', 'desc')
      .orderBy('customers.id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute();
    return { rows: rows as CustomerListRow[], total: Number(count.n) };
  }

  async findOneWithFigures(id: string, nowIso: string): Promise<CustomerListRow | undefined> {
    const row = await this.db
      .selectFrom('customers')
      .selectAll('customers')
      .select((eb) => this.withFigures(eb, nowIso))
      .where('customers.id', '=', id)
      .executeTakeFirst();
    return row as CustomerListRow | undefined;
  }

  /** Every subscription of the customer with its plan's figures, newest first. */
  findSubscriptions(customerId: string): Promise<SubscriptionWithPlan[]> {
    return this.db
      .selectFrom('subscriptions')
      .leftJoin('plans', 'plans.id', 'subscriptions.plan_id')
      .selectAll('subscriptions')
      .select([
        'plans.name as plan_name',
        'plans.max_users as plan_max_users',
        'plans.features_chat as plan_features_chat',
        'plans.features_voice as plan_features_voice',
        'plans.features_video as plan_features_video',
        'plans.storage_bytes as plan_storage_bytes',
      ])
      .where('subscriptions.customer_id', '=', customerId)
      .orderBy('subscriptions.created_at', 'desc')
      .orderBy('subscriptions.id', 'desc')
      .execute();
  }

  /** Completed payments of a customer, latest first: the first one per subscription is its amount. */
  findCompletedPayments(customerId: string): Promise<PaymentsTable[]> {
    return this.db
      .selectFrom('payments')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('status', '=', 'completed')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /** Every payment of the customer with the state of its subscription, newest first. */
  findPayments(customerId: string): Promise<PaymentWithSubscription[]> {
    return this.db
      .selectFrom('payments')
      .leftJoin('subscriptions', 'subscriptions.id', 'payments.subscription_id')
      .leftJoin('plans', 'plans.id', 'payments.plan_id')
      .selectAll('payments')
      .select([
        'subscriptions.status as sub_status',
        'subscriptions.expires_at as sub_expires_at',
        'plans.name as current_plan_name',
      ])
      .where('payments.customer_id', '=', customerId)
      .orderBy('payments.created_at', 'desc')
      .orderBy('payments.id', 'desc')
      .execute();
  }

  /** The customer's first Ring (the one the subscriptions list names). */
  findFirstRing(customerId: string): Promise<{ name: string; is_active: number } | undefined> {
    return this.db
      .selectFrom('rings')
      .select(['name', 'is_active'])
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
  }

  /** Pending subscriptions whose start has come. */
  findDuePending(nowIso: string): Promise<SubscriptionsTable[]> {
    return this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('status', '=', 'pending')
      .where('provider', '=', 'manual')
      .where('starts_at', '<=', nowIso)
      .where('expires_at', '>', nowIso)
      .orderBy('starts_at')
      .execute();
  }

  /** Moves a subscription from `from` to `to`: true for exactly one caller. */
  async transitionSubscription(
    id: string,
    from: SubscriptionsTable['status'],
    changes: Partial<Omit<SubscriptionsTable, 'id' | 'created_at'>> & {
      status: SubscriptionsTable['status'];
    },
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

  /** The owner memberships follow the customer's email (Ring login by email). */
  async updateOwnerMemberEmail(
    customerId: string,
    email: string,
    nowIso: string,
    trx: Database = this.db,
  ): Promise<void> {
    await trx
      .updateTable('ring_members')
      .set({ email, updated_at: nowIso })
      .where('customer_id', '=', customerId)
      .where('role', '=', 'owner')
      .execute();
  }

  async findFootprint(customerId: string, trx: Database = this.db): Promise<CustomerFootprint> {
    const rings = await trx.selectFrom('rings').select('id').where('customer_id', '=', customerId).execute();
    const members = await trx
      .selectFrom('ring_members')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('customer_id', '=', customerId),
          eb('ring_id', 'in', eb.selectFrom('rings').select('id').where('customer_id', '=', customerId)),
        ]),
      )
      .execute();
    return { ringIds: rings.map((r) => r.id), memberIds: members.map((m) => m.id) };
  }

  /**
   * Deletes the customer and everything it owns, in one transaction. Tables without a foreign key
   * (sessions, notification settings) are cleared explicitly; the Rings' content follows by cascade.
   */
  async deleteCustomerCascade(customerId: string, trx: Database): Promise<void> {
    const ringsOfCustomer = () => trx.selectFrom('rings').select('id').where('customer_id', '=', customerId);
    const membersOfCustomer = () =>
      trx
        .selectFrom('ring_members')
        .select('id')
        .where((eb) => eb.or([eb('customer_id', '=', customerId), eb('ring_id', 'in', ringsOfCustomer())]));

    await trx
      .deleteFrom('notification_settings')
      .where((eb) =>
        eb.or([
          eb.and([eb('owner_type', '=', 'customer'), eb('owner_id', '=', customerId)]),
          eb.and([eb('owner_type', '=', 'member'), eb('owner_id', 'in', membersOfCustomer())]),
        ]),
      )
      .execute();
    await trx
      .deleteFrom('sessions')
      .where((eb) =>
        eb.or([
          eb.and([eb('audience', '=', 'customer'), eb('subject_id', '=', customerId)]),
          eb.and([eb('audience', 'in', ['ring', 'stream']), eb('subject_id', 'in', membersOfCustomer())]),
        ]),
      )
      .execute();
    // Ring content (members, keys, conversations, messages, files metadata, folders, calls) cascades.
    await trx.deleteFrom('rings').where('customer_id', '=', customerId).execute();
    await trx.deleteFrom('ring_members').where('customer_id', '=', customerId).execute();
    await trx.deleteFrom('payments').where('customer_id', '=', customerId).execute();
    await trx.deleteFrom('subscriptions').where('customer_id', '=', customerId).execute();
    await trx.deleteFrom('plan_selections').where('customer_id', '=', customerId).execute();
    await trx.deleteFrom('customer_tokens').where('customer_id', '=', customerId).execute();
    await trx.deleteFrom('customers').where('id', '=', customerId).execute();
  }
}
