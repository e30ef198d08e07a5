import type { Database } from '../../db/database';
import type { RingJournalEventsTable } from '../../db/schema';
import type { JournalEventRow, JournalLinkRow } from './ring-journal.policy';

/** The SQL of « Journal du Ring »: the server's own records and the stored membership links. */
export class RingJournalRepository {
  constructor(private readonly db: Database) {}

  async insertEvent(row: RingJournalEventsTable, trx: Database = this.db): Promise<void> {
    await trx.insertInto('ring_journal_events').values(row).execute();
  }

  /** The newest `limit` server records of a Ring. */
  newestEvents(ringId: string, limit: number): Promise<JournalEventRow[]> {
    return this.db
      .selectFrom('ring_journal_events')
      .select(['kind', 'member_id', 'member_username', 'details', 'created_at'])
      .where('ring_id', '=', ringId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** The newest `limit` membership links of a Ring. */
  newestLinks(ringId: string, limit: number): Promise<JournalLinkRow[]> {
    return this.db
      .selectFrom('ring_membership_links')
      .select(['seq', 'type', 'author_member_id', 'link', 'created_at'])
      .where('ring_id', '=', ringId)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
  }

  async count(ringId: string): Promise<number> {
    const [events, links] = await Promise.all([
      this.db
        .selectFrom('ring_journal_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('ring_id', '=', ringId)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('ring_membership_links')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('ring_id', '=', ringId)
        .executeTakeFirstOrThrow(),
    ]);
    return Number(events.n) + Number(links.n);
  }

  /** Usernames of every member the Ring has had (inactive and refused ones included), by id. */
  async memberNames(ringId: string): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('ring_members')
      .select(['id', 'username'])
      .where('ring_id', '=', ringId)
      .execute();
    return new Map(rows.map((row) => [row.id, row.username]));
  }
}
