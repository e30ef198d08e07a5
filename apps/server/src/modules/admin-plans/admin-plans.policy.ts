import {
  ADMIN_PLAN_MESSAGES,
  DEFAULT_NEW_PLAN,
  PLAN_EDITOR_MESSAGES,
  PLAN_MAX_PRICE_EUROS,
  PLAN_NAME_MAX,
  defaultPlanFeatures,
  ephemeralFromFeatures,
  eurosToCents,
  hasPlanFeature,
  isPlanDecimal,
  normalizePlanFeatures,
  parseDiskSpace,
  parseFeatures,
  parsePlanDecimal,
  parsePlanLimit,
  sortEncryptionLevels,
  supportLevelFromFeatures,
  syncPlanFeatures,
  validatePlanFeatures,
  type TAdminPlan,
  type ZSaveAdminPlanRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { PlansTable } from '../../db/schema';
import { badRequest } from '../../lib/app-error';
import { parseEncryptionLevels, toPublicPlan } from '../plans/plan.policy';
import type { PlanSubscriptionCounts } from './admin-plans.repository';

export type SavePlanInput = z.output<typeof ZSaveAdminPlanRequest>;

/** The columns an admin edits (everything but identity, slug, order and times). */
export type PlanValues = Omit<PlansTable, 'id' | 'slug' | 'sort_order' | 'created_at' | 'updated_at'>;

/** Limits above this are typing mistakes. */
const MAX_LIMIT = 1_000_000;

/** The admin form of a plan, with its subscription counts. */
export function toAdminPlan(row: PlansTable, counts: PlanSubscriptionCounts | undefined): TAdminPlan {
  const pub = toPublicPlan(row);
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    price: pub.price,
    max_users: row.max_users,
    max_rings: row.max_rings,
    video_option: pub.video_option,
    // The editor works on the stored lines, not on their display form.
    features: parseFeatures(row.features),
    popular: pub.popular,
    active: pub.active,
    is_active: pub.is_active,
    storage_gb: pub.storage_gb,
    storage_bytes: Number(row.storage_bytes),
    encryption_levels: pub.encryption_levels,
    ephemeral_allowed: pub.ephemeral_allowed,
    support_level: pub.support_level,
    features_chat: pub.features_chat,
    features_voice: pub.features_voice,
    features_video: pub.features_video,
    sort_order: row.sort_order,
    subscribers_count: counts?.current ?? 0,
    subscriptions_count: counts?.total ?? 0,
  };
}

/** "Pro Équipe 2" → "pro-equipe-2": lowercase ASCII letters, digits and dashes. */
export function slugifyPlanName(name: string): string {
  const slug = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/g, '');
  return slug || 'plan';
}

/** `base`, or `base-2`, `base-3`… whichever is not taken. */
export function uniqueSlug(base: string, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let i = 2; ; i++) {
    const candidate = `${base}-${i}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** The values of a plan created with nothing but a name: the default plan of spec 3 §9. */
export function defaultPlanValues(name: string): PlanValues {
  return {
    name,
    price_cents: eurosToCents(DEFAULT_NEW_PLAN.price),
    video_option_cents: eurosToCents(DEFAULT_NEW_PLAN.video_option),
    max_users: DEFAULT_NEW_PLAN.max_users,
    max_rings: DEFAULT_NEW_PLAN.max_rings,
    storage_bytes: DEFAULT_NEW_PLAN.storage_bytes,
    support_level: DEFAULT_NEW_PLAN.support_level,
    features: JSON.stringify(defaultPlanFeatures()),
    features_chat: DEFAULT_NEW_PLAN.features_chat ? 1 : 0,
    features_voice: DEFAULT_NEW_PLAN.features_voice ? 1 : 0,
    features_video: DEFAULT_NEW_PLAN.features_video ? 1 : 0,
    encryption_levels: JSON.stringify(DEFAULT_NEW_PLAN.encryption_levels),
    ephemeral_allowed: 0,
    is_active: DEFAULT_NEW_PLAN.active ? 1 : 0,
    popular: DEFAULT_NEW_PLAN.popular ? 1 : 0,
  };
}

function priceCents(value: string | number | null | undefined, message: string): number {
  if (!isPlanDecimal(value)) throw badRequest(message);
  const euros = parsePlanDecimal(value);
  if (euros > PLAN_MAX_PRICE_EUROS) throw badRequest(message);
  return eurosToCents(euros);
}

function limit(value: string | number | null | undefined, message: string): number {
  if (typeof value === 'number' && !Number.isFinite(value)) throw badRequest(message);
  const n = parsePlanLimit(value);
  if (n > MAX_LIMIT) throw badRequest(message);
  return n;
}

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Disk space from storage_bytes, else storage ("500 Go"), else storage_gb; undefined when absent. */
function storageBytes(input: SavePlanInput): number | undefined {
  let bytes: number | null;
  if (input.storage_bytes !== undefined) {
    bytes =
      Number.isInteger(input.storage_bytes) && input.storage_bytes >= 0
        ? parseDiskSpace(`${input.storage_bytes} B`)
        : null;
  } else if (!isBlank(input.storage)) {
    bytes = parseDiskSpace(input.storage!);
  } else if (!isBlank(input.storage_gb)) {
    const gb = typeof input.storage_gb === 'number' ? input.storage_gb : String(input.storage_gb).trim();
    bytes = typeof gb === 'number' && !Number.isFinite(gb) ? null : parseDiskSpace(`${gb} Go`);
  } else {
    return undefined;
  }
  if (bytes === null) throw badRequest(PLAN_EDITOR_MESSAGES.diskInvalid);
  return bytes;
}

const flag = (b: boolean): 0 | 1 => (b ? 1 : 0);

/**
 * Applies the editor rules of spec 3 §5 to an input over the plan's current values (or the
 * defaults on creation). Feature lines are synced with Rings, encryption and disk, normalised and
 * sorted whenever one of them changes; ephemeral messages and the support level follow the lines.
 * Throws a 400 with the first broken rule.
 */
export function resolvePlanValues(
  input: SavePlanInput,
  current: PlanValues,
  creating: boolean,
): Partial<PlanValues> {
  const changes: Partial<PlanValues> = {};
  if (input.name !== undefined || creating) {
    const name = (input.name ?? '').trim().replace(/\s+/g, ' ');
    if (!name) throw badRequest(PLAN_EDITOR_MESSAGES.nameRequired);
    if (name.length > PLAN_NAME_MAX) throw badRequest(PLAN_EDITOR_MESSAGES.nameTooLong);
    changes.name = name;
  }
  if (input.price !== undefined)
    changes.price_cents = priceCents(input.price, PLAN_EDITOR_MESSAGES.priceInvalid);
  if (input.video_option !== undefined) {
    changes.video_option_cents = priceCents(input.video_option, PLAN_EDITOR_MESSAGES.videoOptionInvalid);
  }
  if (input.max_users !== undefined)
    changes.max_users = limit(input.max_users, ADMIN_PLAN_MESSAGES.maxUsersInvalid);
  if (input.max_rings !== undefined)
    changes.max_rings = limit(input.max_rings, ADMIN_PLAN_MESSAGES.maxRingsInvalid);
  const bytes = storageBytes(input);
  if (bytes !== undefined) changes.storage_bytes = bytes;
  if (input.encryption_levels !== undefined) {
    const levels = sortEncryptionLevels(input.encryption_levels);
    if (levels.length === 0) throw badRequest(PLAN_EDITOR_MESSAGES.encryptionRequired);
    changes.encryption_levels = JSON.stringify(levels);
  }
  if (input.support_level !== undefined) changes.support_level = input.support_level;
  const active = input.active ?? input.is_active;
  if (active !== undefined) changes.is_active = flag(active);
  if (input.popular !== undefined) changes.popular = flag(input.popular);

  const featuresTouched =
    creating ||
    input.features !== undefined ||
    changes.max_rings !== undefined ||
    changes.encryption_levels !== undefined ||
    changes.storage_bytes !== undefined;
  const merged: PlanValues = { ...current, ...changes };
  let lines = parseFeatures(merged.features);
  if (featuresTouched) {
    const given = input.features === undefined ? lines : parseFeatures(input.features);
    lines = normalizePlanFeatures(
      syncPlanFeatures(given, {
        maxRings: merged.max_rings,
        encryptionLevels: parseEncryptionLevels(merged.encryption_levels),
        storageBytes: Number(merged.storage_bytes),
      }),
    );
    const featureError = validatePlanFeatures(lines);
    if (featureError) throw badRequest(featureError);
    changes.features = JSON.stringify(lines);
    changes.ephemeral_allowed = flag(ephemeralFromFeatures(lines));
    changes.support_level = supportLevelFromFeatures(lines, merged.support_level);
  }
  // Capabilities: as sent, else read from the lines when the lines were sent, else unchanged.
  const derive = input.features !== undefined || creating;
  const capability = (sent: boolean | undefined, kind: 'chat' | 'voice' | 'video'): 0 | 1 | undefined =>
    sent !== undefined ? flag(sent) : derive ? flag(hasPlanFeature(lines, kind)) : undefined;
  const chat = capability(input.features_chat, 'chat');
  const voice = capability(input.features_voice, 'voice');
  const video = capability(input.features_video, 'video');
  if (chat !== undefined) changes.features_chat = chat;
  if (voice !== undefined) changes.features_voice = voice;
  if (video !== undefined) changes.features_video = video;
  return changes;
}

/** Names of the columns that really change, for the audit log. */
export function changedColumns<T extends object>(current: T, changes: Partial<T>): string[] {
  return Object.entries(changes)
    .filter(([key, value]) => current[key as keyof T] !== value)
    .map(([key]) => key);
}
