import { z } from 'zod';
import { successOf } from '../common';

/** Where an entry of the Ring journal comes from. */
export const RING_JOURNAL_SOURCES = ['log', 'server'] as const;

/** Entries per page of « Journal du Ring »; an export carries at most RING_JOURNAL_EXPORT_MAX. */
export const RING_JOURNAL_PAGE_SIZE = 25;
export const RING_JOURNAL_EXPORT_MAX = 5000;

export const RING_JOURNAL_MESSAGES = {
  notInPlan: 'Le journal du Ring est inclus dans les plans qui proposent «\u202fJournal d’audit\u202f».',
  invalidPage: 'Page invalide',
} as const;

/**
 * One event of a Ring as the customer space shows it: `log` entries come from the signed
 * membership log (its plaintext fields: type, author, member, seq, time), `server` entries from
 * the server's own records (invitations, customer-space actions, settings). `text` is French.
 */
export const ZRingJournalEntry = z.object({
  at: z.string(),
  source: z.enum(RING_JOURNAL_SOURCES),
  kind: z.string(),
  /** The log link's seq (log entries only). */
  seq: z.number().int().nullable(),
  text: z.string(),
});
export type TRingJournalEntry = z.infer<typeof ZRingJournalEntry>;

/**
 * GET /api/customer/ring-journal.php?ring_id=&page= (newest first, RING_JOURNAL_PAGE_SIZE a page),
 * or &export=1 for the newest RING_JOURNAL_EXPORT_MAX entries at once.
 */
export const ZRingJournalResponse = successOf({
  data: z.object({
    ringId: z.string(),
    entries: z.array(ZRingJournalEntry),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
  }),
});
export type TRingJournal = z.infer<typeof ZRingJournalResponse>['data'];
