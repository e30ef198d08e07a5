import { z } from 'zod';
import { successOf, zLooseBoolean } from '../common';
import { ENCRYPTION_LEVELS, SUPPORT_LEVELS } from '../constants';
import { PLAN_FEATURE_MAX, PLAN_FEATURES_MAX_COUNT, PLAN_NAME_MAX } from '../plans/plan-editor';

/** French messages of the admin plans calls (errors are answered in `message` and `error`). */
export const ADMIN_PLAN_MESSAGES = {
  created: 'Plan créé',
  saved: 'Plan enregistré',
  deleted: 'Plan supprimé',
  notFound: 'Plan introuvable',
  idRequired: 'Identifiant du plan requis',
  inUse: 'Ce plan est utilisé par des abonnements\u202f: désactivez-le plutôt',
  nothingToSave: 'Aucune modification à enregistrer',
  maxUsersInvalid: 'Nombre d’utilisateurs invalide',
  maxRingsInvalid: 'Nombre de Rings invalide',
  encryptionInvalid: 'Niveau de chiffrement inconnu',
  supportInvalid: 'Niveau de support inconnu',
  featuresInvalid: 'Liste de fonctionnalités invalide',
  ordered: 'Ordre des plans enregistré',
  orderInvalid: 'L’ordre doit citer chaque plan une fois',
} as const;

/** A plan as the back office sees it (spec 3 §3 "Plan (admin)"), inactive ones included. */
export const ZAdminPlan = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  /** Euros per month, 2 decimals. */
  price: z.number(),
  max_users: z.number().int(),
  max_rings: z.number().int(),
  /** Extra monthly price in euros; 0 means included. */
  video_option: z.number(),
  features: z.array(z.string()),
  popular: z.boolean(),
  active: z.boolean(),
  is_active: z.boolean(),
  storage_gb: z.number(),
  storage_bytes: z.number().int(),
  encryption_levels: z.array(z.enum(ENCRYPTION_LEVELS)),
  ephemeral_allowed: z.boolean(),
  support_level: z.enum(SUPPORT_LEVELS),
  features_chat: z.boolean(),
  features_voice: z.boolean(),
  features_video: z.boolean(),
  sort_order: z.number().int(),
  /** Subscriptions giving access now (active, not ended). */
  subscribers_count: z.number().int(),
  /** Every subscription referencing the plan, whatever its state: when > 0 it cannot be deleted. */
  subscriptions_count: z.number().int(),
});
export type TAdminPlan = z.infer<typeof ZAdminPlan>;

/** GET /api/admin/plans and /api/admin/plans.php */
export const ZAdminPlansResponse = successOf({ data: z.array(ZAdminPlan) });
export type TAdminPlansResponse = z.infer<typeof ZAdminPlansResponse>;

const zNumberOrText = z
  .union([z.number(), z.string().max(50)])
  .nullable()
  .optional();
const zFlag = zLooseBoolean.optional();

/**
 * POST /api/admin/plans.php (create) and PUT (edit, with id). Every field is optional on edit,
 * so `{ id, active }` or `{ id, popular }` toggles one flag. Numbers may arrive as text ("9,90").
 * Disk space: storage_bytes, else storage ("500 Go", "1,5 To"), else storage_gb.
 */
export const ZSaveAdminPlanRequest = z.object({
  id: z.string().trim().max(64).optional(),
  name: z
    .string()
    .max(PLAN_NAME_MAX * 2)
    .optional(),
  price: zNumberOrText,
  video_option: zNumberOrText,
  max_users: zNumberOrText,
  max_rings: zNumberOrText,
  storage: z.string().max(50).optional(),
  storage_bytes: z.number().optional(),
  storage_gb: zNumberOrText,
  encryption_levels: z
    .array(z.enum(ENCRYPTION_LEVELS, { message: ADMIN_PLAN_MESSAGES.encryptionInvalid }))
    .max(ENCRYPTION_LEVELS.length * 2, ADMIN_PLAN_MESSAGES.encryptionInvalid)
    .optional(),
  features: z
    .union(
      [
        z.array(z.string().max(PLAN_FEATURE_MAX * 5)).max(PLAN_FEATURES_MAX_COUNT * 4),
        z.string().max(PLAN_FEATURE_MAX * PLAN_FEATURES_MAX_COUNT * 2),
      ],
      { message: ADMIN_PLAN_MESSAGES.featuresInvalid },
    )
    .optional(),
  features_chat: zFlag,
  features_voice: zFlag,
  features_video: zFlag,
  support_level: z.enum(SUPPORT_LEVELS, { message: ADMIN_PLAN_MESSAGES.supportInvalid }).optional(),
  popular: zFlag,
  active: zFlag,
  is_active: zFlag,
  sort_order: z.number().int().min(-1_000_000).max(1_000_000).optional(),
});
export type TSaveAdminPlanRequest = z.input<typeof ZSaveAdminPlanRequest>;

export const ZSaveAdminPlanResponse = successOf({ message: z.string(), data: ZAdminPlan });
export type TSaveAdminPlanResponse = z.infer<typeof ZSaveAdminPlanResponse>;

/** DELETE /api/admin/plans.php?id= (the id may also come in a JSON body). */
export const ZDeleteAdminPlanRequest = z.object({
  id: z
    .string({ message: ADMIN_PLAN_MESSAGES.idRequired })
    .trim()
    .min(1, ADMIN_PLAN_MESSAGES.idRequired)
    .max(64),
});
export const ZDeleteAdminPlanResponse = successOf({ message: z.string() });

/**
 * POST /api/admin/plans-order.php — the display order of the plans (the public list and /subscribe
 * follow it): every plan's id once, first shown first. Answers the plans in their new order.
 */
export const ZOrderAdminPlansRequest = z.object({
  ids: z
    .array(z.string().trim().min(1).max(64), { message: ADMIN_PLAN_MESSAGES.orderInvalid })
    .min(1, ADMIN_PLAN_MESSAGES.orderInvalid)
    .max(500, ADMIN_PLAN_MESSAGES.orderInvalid),
});
export type TOrderAdminPlansRequest = z.infer<typeof ZOrderAdminPlansRequest>;
export const ZOrderAdminPlansResponse = successOf({ message: z.string(), data: z.array(ZAdminPlan) });
