import { sql } from 'kysely';
import type { Database } from '../../db/database';

import type { DayCountRow, TimeWindow } from '../../lib/utc-days';

export type { DayCountRow, TimeWindow };

// Times are ISO-8601 text, so the first 10 characters are the UTC day on both dialects. The
// expressions are raw text (no bound parameters) so PostgreSQL sees the select and the group by
// as the same expression.
const messageDay = sql<string>`substr(messages.created_at, 1, 10)`;
const callDay = sql<string>`substr(calls.started_at, 1, 10)`;

/** Aggregates behind the customer's "Statistiques" tab. All SQL runs on SQLite and PostgreSQL. */
export class RingStatsRepository {
  constructor(private readonly db: Database) {}

  async messagesPerDay(ringId: string, window: TimeWindow): Promise<DayCountRow[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => [messageDay.as('day'), eb.fn.countAll<number>().as('n')])
      .where('ring_id', '=', ringId)
      .where('created_at', '>=', window.fromIso)
      .where('created_at', '<', window.toIso)
      .groupBy(messageDay)
      .execute();
    return rows.map((r) => ({ day: r.day, count: Number(r.n) }));
  }

  /** Members who sent at least one message that day. */
  async activeMembersPerDay(ringId: string, window: TimeWindow): Promise<DayCountRow[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => [messageDay.as('day'), eb.fn.count<number>('sender_member_id').distinct().as('n')])
      .where('ring_id', '=', ringId)
      .where('sender_member_id', 'is not', null)
      .where('created_at', '>=', window.fromIso)
      .where('created_at', '<', window.toIso)
      .groupBy(messageDay)
      .execute();
    return rows.map((r) => ({ day: r.day, count: Number(r.n) }));
  }

  async callsPerDay(ringId: string, window: TimeWindow): Promise<DayCountRow[]> {
    const rows = await this.db
      .selectFrom('calls')
      .select((eb) => [callDay.as('day'), eb.fn.countAll<number>().as('n')])
      .where('ring_id', '=', ringId)
      .where('started_at', '>=', window.fromIso)
      .where('started_at', '<', window.toIso)
      .groupBy(callDay)
      .execute();
    return rows.map((r) => ({ day: r.day, count: Number(r.n) }));
  }

  /** Distinct senders over the whole window (not the sum of the daily figures). */
  async activeMembers(ringId: string, window: TimeWindow): Promise<number> {
    const row = await this.db
      .selectFrom('messages')
      .select((eb) => eb.fn.count<number>('sender_member_id').distinct().as('n'))
      .where('ring_id', '=', ringId)
      .where('created_at', '>=', window.fromIso)
      .where('created_at', '<', window.toIso)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Invited and active members, the owner included; removed (inactive) members are not counted. */
  async countMembers(ringId: string): Promise<number> {
    const row = await this.db
      .selectFrom('ring_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('ring_id', '=', ringId)
      .where('status', '!=', 'inactive')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Number of files and bytes they use in the Ring's file space. */
  async files(ringId: string): Promise<{ count: number; bytes: number }> {
    const row = await this.db
      .selectFrom('ring_files')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        // sum(bigint) is numeric on PostgreSQL, which pg returns as a string.
        eb.fn.coalesce(eb.fn.sum<number | string>('size_bytes'), eb.lit(0)).as('bytes'),
      ])
      .where('ring_id', '=', ringId)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), bytes: Number(row.bytes) };
  }
}
