import {
  RING_JOURNAL_EXPORT_MAX,
  RING_JOURNAL_MESSAGES,
  RING_JOURNAL_PAGE_SIZE,
  RING_MESSAGES,
  hasPlanFeature,
  parseFeatures,
  type TRingJournal,
} from '@securering/contract';
import type { AppContext } from '../../app-context';
import { forbidden, notFound } from '../../lib/app-error';
import type { CustomerRow } from '../customers/customer.repository';
import { RingRepository } from '../rings/ring.repository';
import { getEntitlements } from '../subscriptions/entitlements';
import { eventEntry, linkEntry, mergeNewestFirst } from './ring-journal.policy';
import { RingJournalRepository } from './ring-journal.repository';

/**
 * « Journal du Ring » of the customer space (issue 25): who joined, was admitted or refused, left,
 * changed keys, and what changed in the settings, newest first. Only for the Ring's owner, and
 * only while its plan lists « Audit logs » (the line the back office's editor switches on, as
 * « Messages éphémères » decides ephemeral messages).
 */
export class RingJournalService {
  private readonly rings: RingRepository;
  private readonly journal: RingJournalRepository;

  constructor(private readonly ctx: AppContext) {
    this.rings = new RingRepository(ctx.db);
    this.journal = new RingJournalRepository(ctx.db);
  }

  async ringJournal(
    customer: CustomerRow,
    ringId: string,
    view: { page: number } | { export: true },
  ): Promise<TRingJournal> {
    // Another customer's Ring answers exactly like a missing one.
    const ring = await this.rings.findRingById(ringId);
    if (!ring || ring.customer_id !== customer.id) throw notFound(RING_MESSAGES.ringNotFound);
    const entitlements = await getEntitlements(this.ctx, customer.id);
    if (!entitlements || !hasPlanFeature(parseFeatures(entitlements.plan.features), 'audit'))
      throw forbidden(RING_JOURNAL_MESSAGES.notInPlan);

    const pageSize = 'export' in view ? RING_JOURNAL_EXPORT_MAX : RING_JOURNAL_PAGE_SIZE;
    const page = 'export' in view ? 1 : view.page;
    // Newest first from two sources: the first page*size of each hold the first page*size of both.
    const upTo = page * pageSize;
    const [links, events, names, total] = await Promise.all([
      this.journal.newestLinks(ring.id, upTo),
      this.journal.newestEvents(ring.id, upTo),
      this.journal.memberNames(ring.id),
      this.journal.count(ring.id),
    ]);
    const merged = mergeNewestFirst(
      links.map((row) => linkEntry(row, names)),
      events.map((row) => eventEntry(row, names)),
      upTo,
    );
    return { ringId: ring.id, entries: merged.slice(upTo - pageSize), page, pageSize, total };
  }
}
