import { ADMIN_PLAN_MESSAGES, type TAdminPlan } from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { PlansTable } from '../../db/schema';
import { badRequest, conflict, notFound } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import type { AdminRow } from '../admins/admin.repository';
import { PlanRepository } from '../plans/plan.repository';
import { PUBLIC_PLANS_TOPIC } from '../plans/public-plans';
import type { RequestMeta } from '../sessions/session.service';
import {
  changedColumns,
  defaultPlanValues,
  resolvePlanValues,
  slugifyPlanName,
  toAdminPlan,
  uniqueSlug,
  type PlanValues,
  type SavePlanInput,
} from './admin-plans.policy';
import { AdminPlansRepository, isForeignKeyViolation } from './admin-plans.repository';

function valuesOf(row: PlansTable): PlanValues {
  const { id: _id, slug: _slug, sort_order: _order, created_at: _c, updated_at: _u, ...values } = row;
  return values;
}

/** True when `ids` names each of `known` exactly once. */
export function samePlanSet(known: ReadonlySet<string>, ids: readonly string[]): boolean {
  return ids.length === known.size && new Set(ids).size === ids.length && ids.every((id) => known.has(id));
}

/** Plans as the back office manages them: every plan, the editor rules on save, safe deletion. */
export class AdminPlansService {
  private readonly plans: PlanRepository;
  private readonly repo: AdminPlansRepository;

  constructor(private readonly ctx: AppContext) {
    this.plans = new PlanRepository(ctx.db);
    this.repo = new AdminPlansRepository(ctx.db);
  }

  private async target(id: string): Promise<PlansTable> {
    const plan = await this.plans.findById(id);
    if (!plan) throw notFound(ADMIN_PLAN_MESSAGES.notFound);
    return plan;
  }

  private async view(row: PlansTable): Promise<TAdminPlan> {
    const counts = await this.repo.subscriptionCounts(this.ctx.clock.now().toISOString());
    return toAdminPlan(row, counts.get(row.id));
  }

  /** Every plan, inactive ones included, in display order. */
  async list(): Promise<TAdminPlan[]> {
    const [rows, counts] = await Promise.all([
      this.plans.findAll(),
      this.repo.subscriptionCounts(this.ctx.clock.now().toISOString()),
    ]);
    return rows.map((row) => toAdminPlan(row, counts.get(row.id)));
  }

  async create(actor: AdminRow, input: SavePlanInput, meta: RequestMeta): Promise<TAdminPlan> {
    const base = defaultPlanValues('');
    const values: PlanValues = { ...base, ...resolvePlanValues(input, base, true) };
    const slugBase = slugifyPlanName(values.name);
    const nowIso = this.ctx.clock.now().toISOString();
    const row: PlansTable = {
      id: newId(),
      slug: uniqueSlug(slugBase, await this.repo.findSlugsLike(slugBase)),
      ...values,
      sort_order: input.sort_order ?? (await this.repo.maxSortOrder()) + 1,
      created_at: nowIso,
      updated_at: nowIso,
    };
    await this.repo.insert(row);
    this.ctx.realtime.invalidate(PUBLIC_PLANS_TOPIC);
    await this.ctx.systemLog.adminAction(actor, meta, 'Plan créé', {
      plan_id: row.id,
      slug: row.slug,
      name: row.name,
      price_cents: row.price_cents,
      active: row.is_active === 1,
    });
    return this.view(row);
  }

  async update(actor: AdminRow, id: string, input: SavePlanInput, meta: RequestMeta): Promise<TAdminPlan> {
    const current = await this.target(id);
    const values = valuesOf(current);
    const changes: Partial<PlansTable> = resolvePlanValues(input, values, false);
    if (input.sort_order !== undefined) changes.sort_order = input.sort_order;
    if (Object.keys(changes).length === 0) throw badRequest(ADMIN_PLAN_MESSAGES.nothingToSave);
    const fields = changedColumns(current, changes);
    const next: PlansTable = { ...current, ...changes, updated_at: this.ctx.clock.now().toISOString() };
    await this.repo.update(current.id, { ...changes, updated_at: next.updated_at });
    this.ctx.realtime.invalidate(PUBLIC_PLANS_TOPIC);
    await this.ctx.systemLog.adminAction(actor, meta, 'Plan modifié', {
      plan_id: current.id,
      name: next.name,
      fields,
    });
    return this.view(next);
  }

  /** The display order: `ids` must name every plan exactly once (an unknown or missing id is refused). */
  async order(actor: AdminRow, ids: readonly string[], meta: RequestMeta): Promise<TAdminPlan[]> {
    const rows = await this.plans.findAll();
    const known = new Set(rows.map((row) => row.id));
    if (!samePlanSet(known, ids)) throw badRequest(ADMIN_PLAN_MESSAGES.orderInvalid);
    await this.repo.setOrder(ids, this.ctx.clock.now().toISOString());
    this.ctx.realtime.invalidate(PUBLIC_PLANS_TOPIC);
    await this.ctx.systemLog.adminAction(actor, meta, 'Ordre des plans modifié', { plan_ids: [...ids] });
    return this.list();
  }

  /** A plan referenced by a subscription is kept (deactivate it instead). */
  async remove(actor: AdminRow, id: string, meta: RequestMeta): Promise<void> {
    const plan = await this.target(id);
    if ((await this.repo.countSubscriptions(plan.id)) > 0) {
      throw conflict(ADMIN_PLAN_MESSAGES.inUse);
    }
    try {
      await this.repo.delete(plan.id);
      this.ctx.realtime.invalidate(PUBLIC_PLANS_TOPIC);
    } catch (error) {
      // A subscription created meanwhile: the foreign key refuses the deletion.
      if (isForeignKeyViolation(error)) throw conflict(ADMIN_PLAN_MESSAGES.inUse);
      throw error;
    }
    await this.ctx.systemLog.adminAction(actor, meta, 'Plan supprimé', {
      plan_id: plan.id,
      slug: plan.slug,
      name: plan.name,
    });
  }
}
