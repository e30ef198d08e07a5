import { sql } from 'kysely';
import type { Database } from '../../db/database';
import type { CallsTable } from '../../db/schema';
import { ACTIVE_CALL_STATUSES, type CallStatus } from './calls.policy';

export type CallRow = CallsTable;

export type CreateCallOutcome =
  { created: true } | { created: false; busy: string[] } | { created: false; idTaken: true };

/**
 * The `calls` table is both the call history (statistics) and the live state of each call, shared
 * by every instance: who calls whom, the type, the status and the times. No content is stored.
 */
export class CallRepository {
  constructor(private readonly db: Database) {}

  findById(id: string): Promise<CallRow | undefined> {
    return this.db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Calls still ringing or under way in which one of these members takes part. */
  findActiveOf(memberIds: string[], trx: Database = this.db): Promise<CallRow[]> {
    if (memberIds.length === 0) return Promise.resolve([]);
    return trx
      .selectFrom('calls')
      .selectAll()
      .where('status', 'in', [...ACTIVE_CALL_STATUSES])
      .where((eb) =>
        eb.or([eb('caller_member_id', 'in', memberIds), eb('callee_member_id', 'in', memberIds)]),
      )
      .execute();
  }

  /** Every call still ringing or under way (the sweep checks each one). */
  findAllActive(): Promise<CallRow[]> {
    return this.db
      .selectFrom('calls')
      .selectAll()
      .where('status', 'in', [...ACTIVE_CALL_STATUSES])
      .orderBy('started_at')
      .limit(10_000)
      .execute();
  }

  /** Members of a Ring who are in a connected call (presence `in_call`). */
  async findInCallMemberIds(ringId: string): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('calls')
      .select(['caller_member_id', 'callee_member_id'])
      .where('ring_id', '=', ringId)
      .where('status', '=', 'connected')
      .execute();
    const ids = new Set<string>();
    for (const row of rows) {
      if (row.caller_member_id) ids.add(row.caller_member_id);
      if (row.callee_member_id) ids.add(row.callee_member_id);
    }
    return ids;
  }

  /**
   * Records a new ringing call unless one of its two members is already in an active call. The
   * members' rows are locked first (in id order, so two invites never wait on each other in a
   * cycle): two invites involving the same member, even on different instances, run one after the
   * other, and the second sees the first call. SQLite runs write transactions one at a time anyway.
   */
  async createIfFree(row: CallRow, memberIds: string[]): Promise<CreateCallOutcome> {
    return this.db.transaction().execute(async (trx) => {
      for (const id of [...memberIds].sort())
        await trx
          .updateTable('ring_members')
          .set({ updated_at: sql<string>`updated_at` })
          .where('id', '=', id)
          .execute();
      const active = await this.findActiveOf(memberIds, trx);
      if (active.length) {
        const busy = new Set<string>();
        for (const call of active)
          for (const id of [call.caller_member_id, call.callee_member_id])
            if (id && memberIds.includes(id)) busy.add(id);
        return { created: false, busy: [...busy] };
      }
      const existing = await trx.selectFrom('calls').select('id').where('id', '=', row.id).executeTakeFirst();
      if (existing) return { created: false, idTaken: true };
      await trx.insertInto('calls').values(row).execute();
      return { created: true };
    });
  }

  /** Moves a call to a new state only if it is still in one of `from`: true when this call did it. */
  async transition(
    id: string,
    from: readonly CallStatus[],
    changes: Partial<Pick<CallRow, 'status' | 'answered_at' | 'ended_at'>>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('calls')
      .set(changes)
      .where('id', '=', id)
      .where('status', 'in', [...from])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
