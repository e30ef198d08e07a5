import {
  ADMIN_CUSTOMER_MESSAGES,
  centsToEuros,
  computeSubscriptionStatus,
  daysRemaining,
  formatEuros,
  type TAdminCustomer,
  type TAdminCustomerPayment,
  type TAdminCustomerPaymentsResponse,
  type TAdminCustomerSubscription,
  type ZAdminCustomersQuery,
  type ZCreateAdminCustomerRequest,
  type ZCreateManualSubscriptionRequest,
  type ZUpdateAdminCustomerRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { isUniqueViolation } from '../../db/database';
import type { AdminsTable, PaymentsTable } from '../../db/schema';
import { badRequest, conflict, notFound } from '../../lib/app-error';
import { MINUTE_MS } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { hashPassword } from '../../lib/passwords';
import { newCustomerRow } from '../customers/customer.policy';
import { CustomerRepository, type CustomerRow } from '../customers/customer.repository';
import { storageGb } from '../plans/plan.policy';
import { PlanRepository } from '../plans/plan.repository';
import { endCustomerSessions, endMembersAccess, endRingAccessOfCustomer } from '../rings/end-access';
import { RingRepository } from '../rings/ring.repository';
import type { RequestMeta } from '../sessions/session.service';
import { toPaymentListing } from '../subscriptions/payment.policy';
import { queueProviderCancellation } from '../subscriptions/provider-actions';
import {
  endOtherSubscriptions,
  runQueuedActions,
  type QueuedAction,
} from '../subscriptions/replace-subscriptions';
import { SubscriptionRepository, type SubscriptionRow } from '../subscriptions/subscription.repository';
import {
  AdminCustomersRepository,
  type CustomerListRow,
  type SubscriptionWithPlan,
} from './admin-customers.repository';

const M = ADMIN_CUSTOMER_MESSAGES;

/**
 * A manual subscription starting within this margin starts now: the console sends "today" with the
 * browser's clock, which may run a little ahead of the server's.
 */
export const MANUAL_START_TOLERANCE_MS = 5 * MINUTE_MS;

type ListQuery = z.output<typeof ZAdminCustomersQuery>;
type CreateInput = z.output<typeof ZCreateAdminCustomerRequest>;
type UpdateInput = z.output<typeof ZUpdateAdminCustomerRequest>;
type ManualSubscriptionInput = z.output<typeof ZCreateManualSubscriptionRequest>;

/** The server form of a customer (spec 3 §3): status follows is_active; never the password hash. */
export function toAdminCustomer(row: CustomerListRow): TAdminCustomer {
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    company: row.company,
    phone: row.phone,
    country: row.country,
    address_line1: row.address_line1,
    address_line2: row.address_line2,
    city: row.city,
    postal_code: row.postal_code,
    email: row.email,
    email_verified: row.email_verified === 1,
    is_active: row.is_active === 1,
    status: row.is_active === 1 ? 'active' : 'suspended',
    stripe_customer_id: row.stripe_customer_id,
    paypal_customer_id: row.paypal_customer_id,
    current_plan: row.current_plan ?? null,
    total_spent: centsToEuros(Number(row.total_spent_cents ?? 0)),
    rings_count: Number(row.rings_count ?? 0),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The back office's customer management: accounts, their subscriptions and payments (spec 3 §2.4). */
export class AdminCustomersService {
  private readonly repo: AdminCustomersRepository;
  private readonly customers: CustomerRepository;
  private readonly plans: PlanRepository;
  private readonly rings: RingRepository;

  constructor(private readonly ctx: AppContext) {
    this.repo = new AdminCustomersRepository(ctx.db);
    this.customers = new CustomerRepository(ctx.db);
    this.plans = new PlanRepository(ctx.db);
    this.rings = new RingRepository(ctx.db);
  }

  private nowIso(): string {
    return this.ctx.clock.now().toISOString();
  }

  private async target(id: string): Promise<CustomerRow> {
    const customer = await this.customers.findById(id);
    if (!customer) throw notFound(M.notFound);
    return customer;
  }

  private async present(id: string): Promise<TAdminCustomer> {
    const row = await this.repo.findOneWithFigures(id, this.nowIso());
    if (!row) throw notFound(M.notFound);
    return toAdminCustomer(row);
  }

  async list(
    query: ListQuery,
  ): Promise<{ data: TAdminCustomer[]; meta: { total: number; page: number; per_page: number } }> {
    const { rows, total } = await this.repo.findPage(query.search, query.page, query.per_page, this.nowIso());
    return { data: rows.map(toAdminCustomer), meta: { total, page: query.page, per_page: query.per_page } };
  }

  async create(actor: AdminsTable, input: CreateInput, meta: RequestMeta): Promise<TAdminCustomer> {
    if (await this.customers.findByEmail(input.email)) throw conflict(M.emailTaken);
    const now = this.nowIso();
    const row = newCustomerRow(input, await hashPassword(input.password), now, {
      email_verified: input.email_verified ? 1 : 0,
      email_verified_at: input.email_verified ? now : null,
      is_active: input.is_active ? 1 : 0,
      status: input.is_active ? 'active' : 'suspended',
      stripe_customer_id: input.stripe_customer_id,
      paypal_customer_id: input.paypal_customer_id,
      // The customer accepts the terms itself; an account made by an admin has not yet.
      accepted_terms_at: null,
      accepted_privacy_at: null,
    });
    try {
      await this.customers.insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(M.emailTaken);
      throw error;
    }
    await this.ctx.systemLog.adminAction(actor, meta, 'Client créé', {
      customer_id: row.id,
      email: row.email,
    });
    return this.present(row.id);
  }

  async update(actor: AdminsTable, input: UpdateInput, meta: RequestMeta): Promise<TAdminCustomer> {
    const target = await this.target(input.id);
    const now = this.nowIso();
    const emailChanged = input.email !== undefined && input.email !== target.email;
    if (emailChanged) {
      const other = await this.customers.findByEmail(input.email!);
      if (other && other.id !== target.id) throw conflict(M.emailTaken);
    }
    const changes: Partial<Omit<CustomerRow, 'id' | 'created_at'>> = { updated_at: now };
    const fields = [
      'first_name',
      'last_name',
      'email',
      'company',
      'phone',
      'country',
      'address_line1',
      'address_line2',
      'city',
      'postal_code',
      'stripe_customer_id',
      'paypal_customer_id',
    ] as const;
    for (const field of fields) {
      const value = input[field];
      if (value !== undefined) (changes as Record<string, unknown>)[field] = value;
    }
    if (input.email_verified !== undefined && input.email_verified !== (target.email_verified === 1)) {
      changes.email_verified = input.email_verified ? 1 : 0;
      changes.email_verified_at = input.email_verified ? now : null;
    }
    if (input.is_active !== undefined) {
      changes.is_active = input.is_active ? 1 : 0;
      changes.status = input.is_active ? 'active' : 'suspended';
    }
    if (input.new_password !== undefined) changes.password_hash = await hashPassword(input.new_password);

    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        await this.customers.update(target.id, changes, trx);
        if (emailChanged) await this.repo.updateOwnerMemberEmail(target.id, input.email!, now, trx);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(M.emailTaken);
      throw error;
    }

    const passwordChanged = input.new_password !== undefined;
    const deactivated = input.is_active === false;
    // A new password ends every session of the person, its Ring owner sessions included.
    if (passwordChanged || deactivated) await endCustomerSessions(this.ctx, target.id);
    // A deactivated owner's Rings stop serving their members: their sockets close now.
    if (deactivated) await endRingAccessOfCustomer(this.ctx, target.id);
    await this.ctx.systemLog.adminAction(actor, meta, 'Client modifié', {
      customer_id: target.id,
      fields: Object.keys(changes).filter(
        (k) => k !== 'password_hash' && k !== 'updated_at' && k !== 'email_verified_at',
      ),
      password_changed: passwordChanged,
      deactivated: deactivated && target.is_active === 1,
    });
    return this.present(target.id);
  }

  /** Irreversible: the customer, its Rings with all their content and files, its subscriptions and payments. */
  async remove(actor: AdminsTable, id: string, meta: RequestMeta): Promise<void> {
    const target = await this.target(id);
    const { footprint, queued } = await this.ctx.db.transaction().execute(async (trx) => {
      const found = await this.repo.findFootprint(target.id, trx);
      // Its provider subscriptions are cancelled too: a deleted customer is never charged again.
      // The queued actions have no foreign key, so they outlive the rows deleted below.
      const toCancel: QueuedAction[] = [];
      for (const sub of await new SubscriptionRepository(trx).findProviderRenewed(target.id, trx)) {
        if (await queueProviderCancellation(trx, sub, 'customer_deleted', this.nowIso())) {
          toCancel.push({
            provider: 'stripe',
            action: 'cancel_subscription',
            reference: sub.provider_subscription_id!,
          });
        }
      }
      await this.repo.deleteCustomerCascade(target.id, trx);
      return { footprint: found, queued: toCancel };
    });
    await runQueuedActions(this.ctx, queued);
    await endMembersAccess(this.ctx, footprint.memberIds);
    const leftovers: string[] = [];
    for (const ringId of footprint.ringIds) {
      try {
        await this.ctx.storage.deletePrefix(`${ringId}/`);
      } catch (error) {
        leftovers.push(ringId);
        this.ctx.logger.error(
          { err: error, ringId },
          'ring files of a deleted customer could not be removed',
        );
      }
    }
    if (leftovers.length) {
      await this.ctx.systemLog.write({
        level: 'error',
        category: 'system',
        message: 'Fichiers de Rings supprimés impossibles à effacer du disque',
        details: { customer_id: target.id, ring_ids: leftovers },
      });
    }
    await this.ctx.systemLog.adminAction(actor, meta, 'Client supprimé avec ses Rings', {
      customer_id: target.id,
      email: target.email,
      rings: footprint.ringIds.length,
      members: footprint.memberIds.length,
    });
  }

  async subscriptions(customerId: string): Promise<TAdminCustomerSubscription[]> {
    await this.target(customerId);
    const [subscriptions, payments, ring] = await Promise.all([
      this.repo.findSubscriptions(customerId),
      this.repo.findCompletedPayments(customerId),
      this.repo.findFirstRing(customerId),
    ]);
    const latestPayment = new Map<string, PaymentsTable>();
    for (const payment of payments) {
      if (payment.subscription_id && !latestPayment.has(payment.subscription_id)) {
        latestPayment.set(payment.subscription_id, payment);
      }
    }
    const now = this.ctx.clock.now();
    return subscriptions.map((s) => this.toListed(s, latestPayment.get(s.id), ring, now));
  }

  private toListed(
    s: SubscriptionWithPlan,
    payment: PaymentsTable | undefined,
    ring: { name: string; is_active: number } | undefined,
    now: Date,
  ): TAdminCustomerSubscription {
    return {
      id: s.id,
      plan_id: s.plan_id,
      plan_name: s.plan_name ?? '',
      max_users: s.plan_max_users ?? 0,
      status: s.status,
      computed_status: computeSubscriptionStatus(s, now),
      days_remaining: daysRemaining(s.expires_at, now),
      transaction_amount: payment ? centsToEuros(payment.amount_cents) : null,
      transaction_currency: payment ? payment.currency : null,
      billing_cycle: s.billing_cycle,
      starts_at: s.starts_at,
      expires_at: s.expires_at,
      cancelled_at: s.cancelled_at,
      auto_renew: s.auto_renew === 1,
      video_enabled: s.video_enabled === 1,
      provider: s.provider,
      notes: s.notes,
      created_at: s.created_at,
      ring_name: ring?.name ?? null,
      ring_active: ring?.is_active === 1,
      features_chat: s.plan_features_chat === 1,
      features_voice: s.plan_features_voice === 1,
      features_video: s.plan_features_video === 1,
      storage_gb: storageGb(s.plan_storage_bytes ?? 0),
    };
  }

  /**
   * A subscription granted by hand (nothing paid, so no payment row). Starting now, it replaces the
   * customer's running subscription and brings its Rings to the plan; starting later, it waits as
   * pending until activateDueManualSubscriptions starts it.
   */
  async createSubscription(
    actor: AdminsTable,
    customerId: string,
    input: ManualSubscriptionInput,
    meta: RequestMeta,
  ): Promise<TAdminCustomerSubscription> {
    await this.target(customerId);
    const plan = await this.plans.findById(input.plan_id);
    if (!plan || plan.is_active !== 1) throw badRequest(M.planUnavailable);
    const now = this.ctx.clock.now();
    const nowIso = now.toISOString();
    if (Date.parse(input.expires_at) <= now.getTime()) throw badRequest(M.expiryInPast);
    const startsLater = Date.parse(input.starts_at) > now.getTime() + MANUAL_START_TOLERANCE_MS;

    const row: SubscriptionRow = {
      id: newId(),
      customer_id: customerId,
      plan_id: plan.id,
      status: startsLater ? 'pending' : 'active',
      billing_cycle: input.billing_cycle,
      video_enabled: input.video_enabled ? 1 : 0,
      auto_renew: input.auto_renew ? 1 : 0,
      starts_at: input.starts_at,
      expires_at: input.expires_at,
      cancelled_at: null,
      provider: 'manual',
      provider_subscription_id: null,
      failed_payment_count: 0,
      reminder_sent_at: null,
      notes: input.notes,
      created_by_admin_id: actor.id,
      created_at: nowIso,
      updated_at: nowIso,
    };
    const { ids: replaced, queued } = await this.ctx.db.transaction().execute(async (trx) => {
      const ended = startsLater ? { ids: [], queued: [] } : await replaceRunning(customerId, nowIso, trx);
      await trx.insertInto('subscriptions').values(row).execute();
      if (!startsLater)
        await this.rings.updatePlanForCustomer(customerId, plan.slug, plan.storage_bytes, nowIso, trx);
      return ended;
    });
    await runQueuedActions(this.ctx, queued);
    await this.ctx.systemLog.adminAction(actor, meta, 'Abonnement manuel créé', {
      customer_id: customerId,
      subscription_id: row.id,
      plan_id: plan.id,
      plan_name: plan.name,
      status: row.status,
      starts_at: row.starts_at,
      expires_at: row.expires_at,
      replaced_subscription_ids: replaced,
    });
    const listed = (await this.subscriptions(customerId)).find((s) => s.id === row.id);
    if (!listed) throw notFound(M.notFound);
    return listed;
  }

  async payments(customerId: string): Promise<Omit<TAdminCustomerPaymentsResponse, 'success'>> {
    await this.target(customerId);
    const now = this.ctx.clock.now();
    const rows = await this.repo.findPayments(customerId);
    const data: TAdminCustomerPayment[] = rows.map((p) => {
      const { amount, plan_name, computed_status } = toPaymentListing(p, now);
      return {
        id: p.id,
        created_at: p.created_at,
        plan_name,
        billing_cycle: p.billing_cycle === 'yearly' ? 'annual' : 'monthly',
        amount,
        amount_formatted: formatEuros(amount),
        currency: p.currency,
        payment_provider: p.provider,
        computed_status,
        failure_reason: p.failure_reason,
        payment_type: p.payment_type,
        transaction_id: p.transaction_id,
        status: p.status,
      };
    });
    const completed = rows.filter((p) => p.status === 'completed');
    return {
      data,
      summary: {
        total_collected: centsToEuros(completed.reduce((sum, p) => sum + p.amount_cents, 0)),
        completed_count: completed.length,
        failed_count: rows.filter((p) => p.status === 'failed').length,
      },
    };
  }
}

/**
 * Ends the customer's subscriptions (a manual one takes over): running ones are cancelled and the
 * provider subscription behind each is queued for cancellation, so it is never charged again.
 */
async function replaceRunning(
  customerId: string,
  nowIso: string,
  trx: AppContext['db'],
  exceptId?: string,
): Promise<{ ids: string[]; queued: QueuedAction[] }> {
  const { ended, queued } = await endOtherSubscriptions(trx, customerId, nowIso, {
    ...(exceptId ? { exceptId } : {}),
    note: M.replacedByManual,
    reason: 'replaced_by_manual_subscription',
  });
  return { ids: ended.filter((s) => s.status === 'cancelled').map((s) => s.id), queued };
}

/** Thrown inside a transaction to roll it back when another instance started the subscription. */
class AlreadyStarted extends Error {}

/**
 * Starts the manual subscriptions whose start date has come: each replaces the customer's running
 * subscription and brings its Rings to the plan. Meant for the scheduler (safe on several instances:
 * a conditional update starts each subscription once). Returns the ids started.
 */
export async function activateDueManualSubscriptions(ctx: AppContext): Promise<string[]> {
  const repo = new AdminCustomersRepository(ctx.db);
  const plans = new PlanRepository(ctx.db);
  const rings = new RingRepository(ctx.db);
  const nowIso = ctx.clock.now().toISOString();
  const started: string[] = [];
  for (const due of await repo.findDuePending(nowIso)) {
    const plan = await plans.findById(due.plan_id);
    let result: { ids: string[]; queued: QueuedAction[] };
    try {
      result = await ctx.db.transaction().execute(async (trx) => {
        // The old ones end first: one active subscription per customer (unique index).
        const ended = await replaceRunning(due.customer_id, nowIso, trx, due.id);
        if (
          !(await repo.transitionSubscription(
            due.id,
            'pending',
            { status: 'active', updated_at: nowIso },
            trx,
          ))
        ) {
          throw new AlreadyStarted();
        }
        if (plan)
          await rings.updatePlanForCustomer(due.customer_id, plan.slug, plan.storage_bytes, nowIso, trx);
        return ended;
      });
    } catch (error) {
      if (error instanceof AlreadyStarted || isUniqueViolation(error)) continue;
      throw error;
    }
    await runQueuedActions(ctx, result.queued);
    const replaced = result.ids;
    started.push(due.id);
    await ctx.systemLog.info('payment', 'Abonnement manuel démarré', {
      userId: due.customer_id,
      details: { subscription_id: due.id, replaced_subscription_ids: replaced },
    });
  }
  return started;
}
