import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/database';
import { precompiledQuery } from '../../db/precompiled-query';
import type { DB, EpochKeySharesTable, MemberKeysTable, RingEpochsTable } from '../../db/schema';
import { LACKING_SHARES_ROWS_KEPT } from './lacking-shares-by-revision';

export type MemberKeyRow = MemberKeysTable;
export type RingEpochRow = RingEpochsTable;
export type EpochKeyShareRow = EpochKeySharesTable;

/** An active member of a Ring who has published keys: a recipient of epoch keys. */
export interface KeyedMember {
  id: string;
  first_readable_epoch: number;
  admitted_seq: number | null;
  key_version: number;
  public_x25519: string;
  public_ed25519: string;
}

/**
 * The Ring's key revision raised by one, for an update of `rings`: written with every change its
 * members' key states depend on (see migration 20261128-001 and `keyRevision`).
 */
export const raisedKeyRevision = (eb: ExpressionBuilder<DB, 'rings'>) => eb('key_revision', '+', 1);

/**
 * Active members admitted in the Ring's signed membership log whose published keys are the ones the
 * log names, joined with those keys: the only members epoch keys go to (issue 24). A member not
 * admitted yet, or whose published keys changed without a key-change link, receives nothing.
 */
function activeKeyedMemberRows(db: Database) {
  return db
    .selectFrom('ring_members')
    .innerJoin('member_keys', 'member_keys.member_id', 'ring_members.id')
    .where('ring_members.status', '=', 'active')
    .where('ring_members.admitted_seq', 'is not', null)
    .where('ring_members.log_deactivated', '=', 0)
    .where('member_keys.key_version', '>', 0)
    .whereRef('member_keys.public_x25519', '=', 'ring_members.log_x25519')
    .whereRef('member_keys.public_ed25519', '=', 'ring_members.log_ed25519');
}
const KEYED_MEMBER_COLUMNS = [
  'ring_members.id',
  'ring_members.first_readable_epoch',
  'ring_members.admitted_seq',
  'member_keys.key_version',
  'member_keys.public_x25519',
  'member_keys.public_ed25519',
] as const;

/** Whether a member lacks a valid share (for its current key version) of the joined epoch. */
function lacksShareOfEpoch({
  not,
  exists,
  selectFrom,
}: ExpressionBuilder<DB, 'ring_members' | 'member_keys' | 'ring_epochs'>) {
  return not(
    exists(
      selectFrom('epoch_key_shares')
        .select('epoch_key_shares.epoch')
        .whereRef('epoch_key_shares.ring_id', '=', 'ring_epochs.ring_id')
        .whereRef('epoch_key_shares.epoch', '=', 'ring_epochs.epoch')
        .whereRef('epoch_key_shares.recipient_member_id', '=', 'ring_members.id')
        .whereRef('epoch_key_shares.recipient_key_version', '=', 'member_keys.key_version'),
    ),
  );
}

/** See ringWideLackingShares (`limit`: one row more than is kept tells the list is too long). */
const ringWideLacking = precompiledQuery((db: Database, ringId: string, limit: number) =>
  activeKeyedMemberRows(db)
    .innerJoin('ring_epochs', 'ring_epochs.ring_id', 'ring_members.ring_id')
    .select([...KEYED_MEMBER_COLUMNS, 'ring_epochs.epoch'])
    .where('ring_members.ring_id', '=', ringId)
    .whereRef('ring_epochs.epoch', '>=', 'ring_members.first_readable_epoch')
    .where(lacksShareOfEpoch)
    .orderBy('ring_members.id')
    .orderBy('ring_epochs.epoch')
    .limit(limit),
);

/**
 * What a key nudge at every socket join reads, in one query: for an active member of the Ring with
 * published keys, the Ring's epochs (oldest first; one row with a null epoch when it has none), each
 * with whether the member holds a share of it for its current key version, and what the member
 * may read (its first readable epoch). No row: not such a member.
 */
const keyNeedsOf = precompiledQuery((db: Database, ringId: string, memberId: string) =>
  activeKeyedMemberRows(db)
    .innerJoin('rings', 'rings.id', 'ring_members.ring_id')
    .leftJoin('ring_epochs', 'ring_epochs.ring_id', 'rings.id')
    .select((eb) => [
      'ring_members.first_readable_epoch',
      'ring_members.admitted_seq',
      'ring_epochs.epoch',
      eb
        .exists(
          eb
            .selectFrom('epoch_key_shares')
            .select('epoch_key_shares.epoch')
            .whereRef('epoch_key_shares.ring_id', '=', 'ring_epochs.ring_id')
            .whereRef('epoch_key_shares.epoch', '=', 'ring_epochs.epoch')
            .whereRef('epoch_key_shares.recipient_member_id', '=', 'ring_members.id')
            .whereRef('epoch_key_shares.recipient_key_version', '=', 'member_keys.key_version'),
        )
        .as('held'),
    ])
    .where('ring_members.id', '=', memberId)
    .where('ring_members.ring_id', '=', ringId)
    .orderBy('ring_epochs.epoch'),
);

/** What a member with published keys may read of its Ring's epochs and which it holds (keyNeedsOf). */
export interface KeyNeeds {
  first_readable_epoch: number;
  admitted_seq: number | null;
  epochs: Array<{ epoch: number; held: boolean }>;
}

/** A Ring's key revision (see raisedKeyRevision), read after each socket join. */
const keyRevisionOf = precompiledQuery((db: Database, ringId: string) =>
  db.selectFrom('rings').select('key_revision').where('id', '=', ringId),
);

/**
 * The SQL of the Ring key layer: member key records and public keys, epochs, and epoch key shares.
 * A share counts only while its `recipient_key_version` is the recipient's current key version.
 */
export class RingKeysRepository {
  constructor(private readonly db: Database) {}

  findMemberKey(memberId: string, trx: Database = this.db): Promise<MemberKeyRow | undefined> {
    return trx.selectFrom('member_keys').selectAll().where('member_id', '=', memberId).executeTakeFirst();
  }

  async insertMemberKey(row: MemberKeyRow, trx: Database = this.db): Promise<void> {
    await trx.insertInto('member_keys').values(row).execute();
  }

  /**
   * Replaces a member's record (and public keys) if its key version is still `expectedVersion`:
   * true for exactly one of two concurrent writers.
   */
  async updateMemberKey(
    memberId: string,
    expectedVersion: number,
    changes: Partial<Omit<MemberKeyRow, 'id' | 'member_id' | 'created_at'>>,
    trx: Database = this.db,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('member_keys')
      .set(changes)
      .where('member_id', '=', memberId)
      .where('key_version', '=', expectedVersion)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteSharesOfRecipient(memberId: string, trx: Database = this.db): Promise<void> {
    await trx.deleteFrom('epoch_key_shares').where('recipient_member_id', '=', memberId).execute();
  }

  /** Published keys of the Ring's members (any status), by member id. */
  async publicKeysOfRing(
    ringId: string,
  ): Promise<
    Map<string, Pick<MemberKeyRow, 'public_x25519' | 'public_ed25519' | 'fingerprint' | 'key_version'>>
  > {
    const rows = await this.db
      .selectFrom('member_keys')
      .innerJoin('ring_members', 'ring_members.id', 'member_keys.member_id')
      .select([
        'member_keys.member_id',
        'member_keys.public_x25519',
        'member_keys.public_ed25519',
        'member_keys.fingerprint',
        'member_keys.key_version',
      ])
      .where('ring_members.ring_id', '=', ringId)
      .where('member_keys.key_version', '>', 0)
      .execute();
    return new Map(rows.map(({ member_id, ...keys }) => [member_id, keys]));
  }

  /** Active members of the Ring with published keys. */
  activeKeyedMembers(ringId: string, trx: Database = this.db): Promise<KeyedMember[]> {
    return activeKeyedMemberRows(trx)
      .select(KEYED_MEMBER_COLUMNS)
      .where('ring_members.ring_id', '=', ringId)
      .orderBy('ring_members.id')
      .execute();
  }

  /** See keyNeedsOf: undefined unless the member is active in the Ring with published keys. */
  async findKeyNeeds(ringId: string, memberId: string): Promise<KeyNeeds | undefined> {
    const rows = await keyNeedsOf(this.db, ringId, memberId);
    const [first] = rows;
    if (!first) return undefined;
    return {
      first_readable_epoch: first.first_readable_epoch,
      admitted_seq: first.admitted_seq,
      epochs: rows
        .filter((row): row is typeof row & { epoch: number } => row.epoch !== null)
        // SQLite answers EXISTS with 0 or 1, PostgreSQL with a boolean.
        .map((row) => ({ epoch: row.epoch, held: Boolean(row.held) })),
    };
  }

  async currentEpoch(ringId: string, trx: Database = this.db): Promise<number | undefined> {
    const row = await trx
      .selectFrom('rings')
      .select('current_epoch')
      .where('id', '=', ringId)
      .executeTakeFirst();
    return row?.current_epoch;
  }

  findEpochs(ringId: string, trx: Database = this.db): Promise<RingEpochRow[]> {
    return trx.selectFrom('ring_epochs').selectAll().where('ring_id', '=', ringId).orderBy('epoch').execute();
  }

  findEpoch(ringId: string, epoch: number, trx: Database = this.db): Promise<RingEpochRow | undefined> {
    return trx
      .selectFrom('ring_epochs')
      .selectAll()
      .where('ring_id', '=', ringId)
      .where('epoch', '=', epoch)
      .executeTakeFirst();
  }

  /** The member's valid shares of epochs ≥ `minEpoch`, oldest first. */
  findSharesOf(
    ringId: string,
    memberId: string,
    keyVersion: number,
    minEpoch: number,
  ): Promise<EpochKeyShareRow[]> {
    return this.db
      .selectFrom('epoch_key_shares')
      .selectAll()
      .where('ring_id', '=', ringId)
      .where('recipient_member_id', '=', memberId)
      .where('recipient_key_version', '=', keyVersion)
      .where('epoch', '>=', minEpoch)
      .orderBy('epoch')
      .execute();
  }

  async heldEpochs(
    ringId: string,
    memberId: string,
    keyVersion: number,
    trx: Database = this.db,
  ): Promise<Set<number>> {
    const rows = await trx
      .selectFrom('epoch_key_shares')
      .select('epoch')
      .where('ring_id', '=', ringId)
      .where('recipient_member_id', '=', memberId)
      .where('recipient_key_version', '=', keyVersion)
      .execute();
    return new Set(rows.map((r) => r.epoch));
  }

  /**
   * Every active admitted member with published keys and every epoch of the Ring it may read (from
   * its first readable one) and lacks a valid share of, by member id then epoch: the Ring-wide list
   * that LackingSharesByRevision keeps. Undefined when longer than `keep` rows.
   */
  async ringWideLackingShares(
    ringId: string,
    keep = LACKING_SHARES_ROWS_KEPT,
  ): Promise<Array<KeyedMember & { epoch: number }> | undefined> {
    const rows = await ringWideLacking(this.db, ringId, keep + 1);
    return rows.length > keep ? undefined : rows;
  }

  /**
   * The other active admitted members with published keys who lack a valid share (for their
   * current key version) of some of `epochs`, those they may read (from their first readable one,
   * which their admission set): one row per member and epoch lacking, by member id then epoch. Only what is
   * missing leaves the database: in a Ring where everyone holds the keys, nothing.
   */
  lackingShares(
    ringId: string,
    exceptMemberId: string,
    epochs: readonly number[],
  ): Promise<Array<KeyedMember & { epoch: number }>> {
    if (epochs.length === 0) return Promise.resolve([]);
    return activeKeyedMemberRows(this.db)
      .innerJoin('ring_epochs', 'ring_epochs.ring_id', 'ring_members.ring_id')
      .select([...KEYED_MEMBER_COLUMNS, 'ring_epochs.epoch'])
      .where('ring_members.ring_id', '=', ringId)
      .where('ring_members.id', '!=', exceptMemberId)
      .where('ring_epochs.epoch', 'in', [...epochs])
      .where(lacksShareOfEpoch)
      .whereRef('ring_epochs.epoch', '>=', 'ring_members.first_readable_epoch')
      .orderBy('ring_members.id')
      .orderBy('ring_epochs.epoch')
      .execute();
  }

  /** Whether an active keyed member (activeKeyedMemberRows) holds a valid share of `epoch`. */
  async epochHasHolder(ringId: string, epoch: number, trx: Database = this.db): Promise<boolean> {
    const row = await activeKeyedMemberRows(trx)
      .innerJoin('epoch_key_shares', (join) =>
        join
          .onRef('epoch_key_shares.recipient_member_id', '=', 'ring_members.id')
          .onRef('epoch_key_shares.recipient_key_version', '=', 'member_keys.key_version'),
      )
      .select('ring_members.id')
      .where('ring_members.ring_id', '=', ringId)
      .where('epoch_key_shares.epoch', '=', epoch)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Valid shares of the Ring (the recipient's current key version) for the given epochs: who holds
   * what. `memberIds` narrows to some recipients.
   */
  async validHoldings(
    ringId: string,
    epochs: readonly number[],
    memberIds?: readonly string[],
  ): Promise<Array<{ member_id: string; epoch: number }>> {
    if (epochs.length === 0 || memberIds?.length === 0) return [];
    let query = this.db
      .selectFrom('epoch_key_shares')
      .innerJoin('member_keys', (join) =>
        join
          .onRef('member_keys.member_id', '=', 'epoch_key_shares.recipient_member_id')
          .onRef('member_keys.key_version', '=', 'epoch_key_shares.recipient_key_version'),
      )
      .select(['epoch_key_shares.recipient_member_id as member_id', 'epoch_key_shares.epoch'])
      .where('epoch_key_shares.ring_id', '=', ringId)
      .where('epoch_key_shares.epoch', 'in', [...epochs]);
    if (memberIds) query = query.where('epoch_key_shares.recipient_member_id', 'in', [...memberIds]);
    return query.execute();
  }

  /**
   * Moves the Ring from epoch `from` to `from + 1` if no one else did (compare-and-set): resets the
   * epoch's age, message count and the rotation-due flag. True for exactly one concurrent caller.
   */
  async advanceEpoch(
    ringId: string,
    from: number,
    nowIso: string,
    trx: Database = this.db,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('rings')
      .set((eb) => ({
        current_epoch: from + 1,
        epoch_created_at: nowIso,
        epoch_message_count: 0,
        rotation_due: 0,
        updated_at: nowIso,
        key_revision: raisedKeyRevision(eb),
      }))
      .where('id', '=', ringId)
      .where('current_epoch', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertEpoch(row: RingEpochRow, trx: Database = this.db): Promise<void> {
    await trx.insertInto('ring_epochs').values(row).execute();
  }

  /**
   * Stores shares; a share already held for the same epoch and recipient is kept, unless it was
   * wrapped to an older key version of the recipient (then it is replaced). Returns how many rows
   * were written.
   */
  async upsertShares(rows: EpochKeyShareRow[], trx: Database = this.db): Promise<number> {
    if (rows.length === 0) return 0;
    let written = 0;
    // Batches keep each statement far below SQLite's bound-variable limit.
    for (let i = 0; i < rows.length; i += 200) {
      const inserted = await trx
        .insertInto('epoch_key_shares')
        .values(rows.slice(i, i + 200))
        .onConflict((oc) =>
          oc
            .columns(['ring_id', 'epoch', 'recipient_member_id'])
            .doUpdateSet((eb) => ({
              recipient_key_version: eb.ref('excluded.recipient_key_version'),
              sender_member_id: eb.ref('excluded.sender_member_id'),
              share: eb.ref('excluded.share'),
              created_at: eb.ref('excluded.created_at'),
            }))
            .where('epoch_key_shares.recipient_key_version', '<', (eb) =>
              eb.ref('excluded.recipient_key_version'),
            ),
        )
        .returning('epoch_key_shares.id')
        .execute();
      written += inserted.length;
    }
    return written;
  }

  /** Raises the Ring's key revision (shares stored, a member's keys published or reset). */
  async raiseKeyRevision(ringId: string, trx: Database = this.db): Promise<void> {
    await trx
      .updateTable('rings')
      .set((eb) => ({ key_revision: raisedKeyRevision(eb) }))
      .where('id', '=', ringId)
      .execute();
  }

  /** The Ring's key revision now (undefined for an unknown Ring). */
  async keyRevision(ringId: string): Promise<number | undefined> {
    return (await keyRevisionOf(this.db, ringId))[0]?.key_revision;
  }
}
