import type { Database } from '../../db/database';
import type { RingMembershipLinksTable } from '../../db/schema';
import { raisedKeyRevision } from '../ring-keys/ring-keys.repository';
import type { ServerMember } from './membership-log.policy';

/** The SQL of the signed membership log: its links, and the columns that mirror what it says. */
export class MembershipLogRepository {
  constructor(private readonly db: Database) {}

  /** Links with seq > `after`, in order. */
  async linksAfter(ringId: string, after: number): Promise<RingMembershipLinksTable[]> {
    return this.db
      .selectFrom('ring_membership_links')
      .selectAll()
      .where('ring_id', '=', ringId)
      .where('seq', '>', after)
      .orderBy('seq')
      .execute();
  }

  /** A member of the Ring with its published keys, as the link checks read it. */
  async findMember(
    ringId: string,
    memberId: string,
    trx: Database = this.db,
  ): Promise<ServerMember | undefined> {
    const row = await trx
      .selectFrom('ring_members')
      .leftJoin('member_keys', (join) =>
        join.onRef('member_keys.member_id', '=', 'ring_members.id').on('member_keys.key_version', '>', 0),
      )
      .select([
        'ring_members.id',
        'ring_members.username',
        'ring_members.role',
        'ring_members.status',
        'ring_members.is_used',
        'ring_members.admitted_seq',
        'ring_members.refused_at',
        'ring_members.first_readable_epoch',
        'member_keys.public_x25519',
        'member_keys.public_ed25519',
      ])
      .where('ring_members.id', '=', memberId)
      .where('ring_members.ring_id', '=', ringId)
      .executeTakeFirst();
    if (!row) return undefined;
    const { public_x25519, public_ed25519, ...member } = row;
    return {
      ...member,
      keys: public_x25519 && public_ed25519 ? { x25519: public_x25519, ed25519: public_ed25519 } : null,
    };
  }

  /**
   * Moves the log's head from `seq - 1` to `seq` (the compare-and-set of an append): the Ring's key
   * revision rises, a new epoch becomes due when the link changes who reads, the signed level is
   * kept. Returns the current epoch then, or undefined when the head had moved.
   */
  async advanceHead(
    ringId: string,
    head: { seq: number; hash: string },
    changes: { readersChanged: boolean; level?: string },
    nowIso: string,
    trx: Database,
  ): Promise<number | undefined> {
    const row = await trx
      .updateTable('rings')
      .set((eb) => ({
        log_head_seq: head.seq,
        log_head_hash: head.hash,
        key_revision: raisedKeyRevision(eb),
        updated_at: nowIso,
        ...(changes.readersChanged ? { rotation_due: 1 as const } : {}),
        ...(changes.level ? { log_level: changes.level as 'basic' } : {}),
      }))
      .where('id', '=', ringId)
      .where('log_head_seq', '=', head.seq - 1)
      .returning('current_epoch')
      .executeTakeFirst();
    return row?.current_epoch;
  }

  async insertLink(row: RingMembershipLinksTable, trx: Database): Promise<void> {
    await trx.insertInto('ring_membership_links').values(row).execute();
  }

  async updateMember(
    ringId: string,
    memberId: string,
    changes: {
      admitted_seq?: number;
      log_x25519?: string;
      log_ed25519?: string;
      first_readable_epoch?: number;
      status?: 'active' | 'inactive';
      log_deactivated?: 0 | 1;
      role?: 'owner' | 'admin' | 'member';
      refused_at?: string;
      updated_at: string;
    },
    trx: Database,
  ): Promise<void> {
    await trx
      .updateTable('ring_members')
      .set(changes)
      .where('id', '=', memberId)
      .where('ring_id', '=', ringId)
      .execute();
  }

  /** Whether the member holds a share of any epoch for its current keys (it could already read). */
  async holdsAnyShare(memberId: string, trx: Database = this.db): Promise<boolean> {
    const row = await trx
      .selectFrom('epoch_key_shares')
      .innerJoin('member_keys', (join) =>
        join
          .onRef('member_keys.member_id', '=', 'epoch_key_shares.recipient_member_id')
          .onRef('member_keys.key_version', '=', 'epoch_key_shares.recipient_key_version'),
      )
      .select('epoch_key_shares.epoch')
      .where('epoch_key_shares.recipient_member_id', '=', memberId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Active members who accepted their invitation and published keys but are not admitted yet. */
  async waitingMembers(ringId: string): Promise<Array<{ id: string; username: string }>> {
    return this.db
      .selectFrom('ring_members')
      .innerJoin('member_keys', 'member_keys.member_id', 'ring_members.id')
      .select(['ring_members.id', 'ring_members.username'])
      .where('ring_members.ring_id', '=', ringId)
      .where('ring_members.status', '=', 'active')
      .where('ring_members.admitted_seq', 'is', null)
      .where('member_keys.key_version', '>', 0)
      .orderBy('ring_members.created_at')
      .execute();
  }
}
