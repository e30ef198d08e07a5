import { z } from 'zod';
import { LOG_CATEGORIES, type LOG_LEVELS } from '../constants';

/** Level names the old clients send; normalised to the four stored levels. */
const LEVEL_ALIASES: Record<string, (typeof LOG_LEVELS)[number]> = {
  debug: 'info',
  info: 'info',
  log: 'info',
  warn: 'warning',
  warning: 'warning',
  error: 'error',
  fatal: 'critical',
  critical: 'critical',
};

export const CLIENT_LOG_LIMITS = { message: 1000, details: 8000 } as const;

/** POST /api/utils/log.php — fire-and-forget client reports, clipped rather than refused when long. */
export const ZClientLogRequest = z.object({
  level: z
    .string()
    .transform((l) => LEVEL_ALIASES[l.trim().toLowerCase()] ?? 'info')
    .default('info'),
  category: z
    .string()
    .transform((c) => {
      const v = c.trim().toLowerCase();
      return (LOG_CATEGORIES as readonly string[]).includes(v)
        ? (v as (typeof LOG_CATEGORIES)[number])
        : 'system';
    })
    .default('system'),
  message: z
    .string()
    .min(1)
    .transform((m) => m.slice(0, CLIENT_LOG_LIMITS.message)),
  details: z.unknown().optional(),
  user_id: z.union([z.string(), z.number()]).nullish(),
});
export type TClientLogRequest = z.input<typeof ZClientLogRequest>;
