import type { AppContext } from '../../app-context';
import type { Database } from '../../db/database';
import type { RingJournalEventsTable } from '../../db/schema';
import { newId } from '../../lib/ids';
import { RingJournalRepository } from './ring-journal.repository';

/**
 * Records one thing the server did to a Ring in « Journal du Ring » (issue 25): invitations,
 * customer-space deactivations and reactivations, settings changes. A failure is logged and never
 * undoes the action it describes.
 */
export async function recordRingEvent(
  ctx: AppContext,
  event: {
    ringId: string;
    kind: RingJournalEventsTable['kind'];
    member?: { id: string; username: string };
    fields?: readonly string[];
  },
  trx?: Database,
): Promise<void> {
  try {
    await new RingJournalRepository(ctx.db).insertEvent(
      {
        id: newId(),
        ring_id: event.ringId,
        kind: event.kind,
        member_id: event.member?.id ?? null,
        member_username: event.member?.username ?? null,
        details: event.fields ? JSON.stringify({ fields: event.fields }) : null,
        created_at: ctx.clock.now().toISOString(),
      },
      trx,
    );
  } catch (error) {
    ctx.logger.warn(
      { err: error, ringId: event.ringId, kind: event.kind },
      'ring journal event not recorded',
    );
  }
}
