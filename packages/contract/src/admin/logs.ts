import { z } from 'zod';
import { successOf, zLooseBoolean } from '../common';
import { LOG_CATEGORIES, LOG_LEVELS, type LogCategory, type LogLevel } from '../constants';

/** Page size, largest page and default purge age of the Logs tab (spec 3 §9). */
export const LOG_PAGE_SIZE = 50;
export const LOG_MAX_LIMIT = 200;
export const LOG_PURGE_DEFAULT_DAYS = 30;
export const LOG_PURGE_MAX_DAYS = 3650;
/** Messages of request start/end entries, hidden by the "technical requests" switch. */
export const TECHNICAL_LOG_PREFIX = 'Requête ';

export const LOG_LEVEL_LABELS: Record<LogLevel, string> = {
  info: 'Info',
  warning: 'Avertissement',
  error: 'Erreur',
  critical: 'Critique',
};

export const LOG_CATEGORY_LABELS: Record<LogCategory, string> = {
  auth: 'Authentification',
  payment: 'Paiement',
  email: 'Email',
  system: 'Système',
  api: 'API',
  admin: 'Administration',
  client_dashboard: 'Espace client',
  realtime: 'Temps réel',
  messages: 'Messages',
  security: 'Sécurité',
  client: 'Navigateur (anonyme)',
};

export const LOG_MESSAGES = {
  unknownCategory: 'Catégorie inconnue',
  unknownLevel: 'Niveau inconnu',
  invalidLimit: `Limite invalide (1 à ${LOG_MAX_LIMIT})`,
  invalidOffset: 'Décalage invalide',
  categoryRequired: 'Catégorie requise',
  enabledRequired: 'Valeur «\u202fenabled\u202f» requise',
  invalidDays: `Nombre de jours invalide (1 à ${LOG_PURGE_MAX_DAYS})`,
  unknownAction: 'Action inconnue',
  loggingEnabled: 'Logging activé',
  loggingDisabled: 'Logging désactivé',
} as const;

const plural = (n: number, one: string, many: string) => (n > 1 ? many : one);

/** "N entrées supprimées" */
export const logsDeletedMessage = (n: number) =>
  `${n} ${plural(n, 'entrée supprimée', 'entrées supprimées')}`;
/** "N entrées de plus de 30 jours supprimées" */
export const logsPurgedMessage = (n: number, days: number) =>
  `${n} ${plural(n, 'entrée', 'entrées')} de plus de ${days} jours ${plural(n, 'supprimée', 'supprimées')}`;

/** '' and 'all' mean "every category / level". */
const optionalChoice = <T extends string>(values: readonly T[], message: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '' || v === 'all') return undefined;
      if (!(values as readonly string[]).includes(v)) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return v as T;
    });

const intInRange = (min: number, max: number, fallback: number, message: string) =>
  z
    .union([z.number(), z.string()])
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || (typeof v === 'string' && v.trim() === '')) return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return n;
    });

/** GET /api/admin/logs.php */
export const ZAdminLogsQuery = z.object({
  category: optionalChoice(LOG_CATEGORIES, LOG_MESSAGES.unknownCategory),
  level: optionalChoice(LOG_LEVELS, LOG_MESSAGES.unknownLevel),
  limit: intInRange(1, LOG_MAX_LIMIT, LOG_PAGE_SIZE, LOG_MESSAGES.invalidLimit),
  offset: intInRange(0, Number.MAX_SAFE_INTEGER, 0, LOG_MESSAGES.invalidOffset),
  hide_technical: zLooseBoolean.optional().transform((v) => v ?? false),
  search: z
    .string()
    .trim()
    .max(200)
    .optional()
    .transform((s) => (s ? s : undefined)),
});
export type TAdminLogsQuery = z.input<typeof ZAdminLogsQuery>;

export const ZAdminLogEntry = z.object({
  id: z.string(),
  level: z.enum(LOG_LEVELS),
  category: z.string(),
  message: z.string(),
  /** Parsed JSON when the stored text is JSON, otherwise the text; null when none. */
  details: z.unknown(),
  created_at: z.string(),
  ip_address: z.string().nullable(),
  user_id: z.string().nullable(),
  user_agent: z.string().nullable(),
  /** Who user_id is, when it names an admin (username) or a customer (email). */
  user_label: z.string().nullable(),
});
export type TAdminLogEntry = z.infer<typeof ZAdminLogEntry>;

export const ZAdminLogsResponse = successOf({
  logs: z.array(ZAdminLogEntry),
  total: z.number().int(),
  logging_enabled: z.boolean(),
});
export type TAdminLogsResponse = z.infer<typeof ZAdminLogsResponse>;

export const ZToggleLoggingRequest = z.object({
  action: z.literal('toggle_logging'),
  enabled: z
    .custom<unknown>((v) => v !== undefined && v !== null && v !== '', LOG_MESSAGES.enabledRequired)
    .pipe(zLooseBoolean),
});

export const ZClearLogsRequest = z.object({
  action: z.literal('clear_logs'),
  category: z
    .string({ message: LOG_MESSAGES.categoryRequired })
    .trim()
    .min(1, LOG_MESSAGES.categoryRequired)
    .refine(
      (c) => c === 'all' || (LOG_CATEGORIES as readonly string[]).includes(c),
      LOG_MESSAGES.unknownCategory,
    ),
  /** Optional: narrows "clear filtered" to one level as well. */
  level: optionalChoice(LOG_LEVELS, LOG_MESSAGES.unknownLevel),
});

export const ZPurgeLogsRequest = z.object({
  action: z.literal('purge_old'),
  days: intInRange(1, LOG_PURGE_MAX_DAYS, LOG_PURGE_DEFAULT_DAYS, LOG_MESSAGES.invalidDays),
});

/** POST /api/admin/logs.php — one of three actions. */
export const ZAdminLogsAction = z.discriminatedUnion(
  'action',
  [ZToggleLoggingRequest, ZClearLogsRequest, ZPurgeLogsRequest],
  {
    message: LOG_MESSAGES.unknownAction,
  },
);
export type TAdminLogsAction = z.input<typeof ZAdminLogsAction>;

export const ZToggleLoggingResponse = successOf({ message: z.string(), logging_enabled: z.boolean() });
export const ZDeleteLogsResponse = successOf({ message: z.string(), deleted: z.number().int() });
