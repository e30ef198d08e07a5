import { z } from 'zod';
import { ENCRYPTION_LEVELS, SUPPORT_LEVELS } from '../constants';
import { successOf } from '../common';
import { parseFeatures } from './plan-features';

/** A plan as the public site and /subscribe show it: prices in euros per month. */
export const ZPublicPlan = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  price: z.number(),
  video_option: z.number(),
  max_users: z.number().int(),
  max_rings: z.number().int(),
  storage_gb: z.number(),
  support_level: z.enum(SUPPORT_LEVELS),
  /** Older servers sent a JSON string or '|' / newline separated text: all become a list. */
  features: z.union([z.array(z.string()), z.string()]).transform((f) => parseFeatures(f)),
  features_chat: z.boolean(),
  features_voice: z.boolean(),
  features_video: z.boolean(),
  encryption_levels: z.array(z.enum(ENCRYPTION_LEVELS)),
  ephemeral_allowed: z.boolean(),
  is_active: z.boolean(),
  active: z.boolean(),
  popular: z.boolean(),
});
export type TPublicPlan = z.output<typeof ZPublicPlan>;

/** GET /api/subscriptions/plans.php — active plans only. */
export const ZPlansResponse = successOf({ data: z.array(ZPublicPlan) });
export type TPlansResponse = z.infer<typeof ZPlansResponse>;
