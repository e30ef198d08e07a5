import type { Database } from '../../db/database';
import { isUniqueViolation } from '../../db/database';
import { roomReaderIds } from '../messages/messages.repository';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export interface PushTarget {
  id: string;
  member_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

const VAPID_ROW_ID = 'vapid';

/** The SQL of Web Push: the deployment's VAPID key pair and the members' push subscriptions. */
export class WebPushRepository {
  constructor(private readonly db: Database) {}

  async findKeys(): Promise<VapidKeys | undefined> {
    const row = await this.db
      .selectFrom('web_push_keys')
      .select(['public_key', 'private_key'])
      .where('id', '=', VAPID_ROW_ID)
      .executeTakeFirst();
    return row && { publicKey: row.public_key, privateKey: row.private_key };
  }

  /** Stores `keys` unless a pair exists (another instance was first); answers the stored pair. */
  async insertKeysIfAbsent(keys: VapidKeys, nowIso: string): Promise<VapidKeys> {
    try {
      await this.db
        .insertInto('web_push_keys')
        .values({
          id: VAPID_ROW_ID,
          public_key: keys.publicKey,
          private_key: keys.privateKey,
          created_at: nowIso,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const stored = await this.findKeys();
    if (!stored) throw new Error('VAPID keys missing after insert');
    return stored;
  }

  /** Adds or refreshes (same member and endpoint: new keys) one subscription. */
  async upsert(row: PushTarget & { created_at: string }): Promise<void> {
    await this.db
      .insertInto('push_subscriptions')
      .values({ ...row, last_error_at: null })
      .onConflict((oc) =>
        oc
          .columns(['member_id', 'endpoint'])
          .doUpdateSet({ p256dh: row.p256dh, auth: row.auth, last_error_at: null }),
      )
      .execute();
  }

  /** Keeps the member's `keep` newest subscriptions, deletes the others. */
  async trimForMember(memberId: string, keep: number): Promise<void> {
    const rows = await this.db
      .selectFrom('push_subscriptions')
      .select('id')
      .where('member_id', '=', memberId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const extra = rows.slice(keep).map((row) => row.id);
    if (extra.length > 0) await this.db.deleteFrom('push_subscriptions').where('id', 'in', extra).execute();
  }

  async deleteForMember(memberId: string, endpoint: string): Promise<number> {
    const result = await this.db
      .deleteFrom('push_subscriptions')
      .where('member_id', '=', memberId)
      .where('endpoint', '=', endpoint)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deleteById(id: string): Promise<void> {
    await this.db.deleteFrom('push_subscriptions').where('id', '=', id).execute();
  }

  async markFailed(id: string, nowIso: string): Promise<void> {
    await this.db
      .updateTable('push_subscriptions')
      .set({ last_error_at: nowIso })
      .where('id', '=', id)
      .execute();
  }

  /** Subscriptions of the members who may read the room at `epoch` ({@link roomReaderIds}). */
  findForRoom(ringId: string, epoch: number, senderId: string): Promise<PushTarget[]> {
    return this.db
      .selectFrom('push_subscriptions')
      .select(['id', 'member_id', 'endpoint', 'p256dh', 'auth'])
      .where('member_id', 'in', roomReaderIds(this.db, ringId, epoch, senderId))
      .execute();
  }

  /** Subscriptions of these members of the Ring while they are active (a private conversation's peer). */
  findForMembers(ringId: string, memberIds: readonly string[]): Promise<PushTarget[]> {
    if (memberIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('push_subscriptions as s')
      .innerJoin('ring_members as m', 'm.id', 's.member_id')
      .select(['s.id', 's.member_id', 's.endpoint', 's.p256dh', 's.auth'])
      .where('m.ring_id', '=', ringId)
      .where('m.status', '=', 'active')
      .where('m.log_deactivated', '=', 0)
      .where('m.id', 'in', [...memberIds])
      .execute();
  }

  /** Whether any member of the Ring has a push subscription. */
  async ringHasSubscriptions(ringId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('push_subscriptions as s')
      .innerJoin('ring_members as m', 'm.id', 's.member_id')
      .select('s.id')
      .where('m.ring_id', '=', ringId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async countForMember(memberId: string): Promise<number> {
    const row = await this.db
      .selectFrom('push_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('member_id', '=', memberId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
