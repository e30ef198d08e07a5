import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/database';
import { precompiledQuery } from '../../db/precompiled-query';
import type { DB, RingMembersTable, RingsTable, SessionsTable } from '../../db/schema';
import { raisedKeyRevision } from '../ring-keys/ring-keys.repository';
import { liveSession } from '../sessions/session.repository';

export type RingRow = RingsTable;
export type RingMemberRow = RingMembersTable;

/**
 * findServiceableRing's rule — the Ring active, its owner active, a current subscription — as a
 * condition of a query that joins `rings` and `customers`.
 */
function ringServiceable(
  eb: ExpressionBuilder<DB, 'rings' | 'customers'>,
  nowIso: string,
): Expression<SqlBool> {
  return eb.and([
    eb('rings.is_active', '=', 1),
    eb('customers.is_active', '=', 1),
    eb.exists(
      eb
        .selectFrom('subscriptions')
        .select('subscriptions.id')
        .whereRef('subscriptions.customer_id', '=', 'rings.customer_id')
        .where('subscriptions.status', '=', 'active')
        .where('subscriptions.expires_at', '>', nowIso),
    ),
  ]);
}

/**
 * In a statement on `sessions`: the session's subject is an active member of a serviceable Ring.
 * A socket handshake consumes its stream token on that condition (SessionService.consumeStreamToken).
 */
export function subjectIsActiveMember(
  eb: ExpressionBuilder<DB, 'sessions'>,
  nowIso: string,
): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom('ring_members')
      .innerJoin('rings', 'rings.id', 'ring_members.ring_id')
      .innerJoin('customers', 'customers.id', 'rings.customer_id')
      .select('ring_members.id')
      .whereRef('ring_members.id', '=', 'sessions.subject_id')
      .where('ring_members.status', '=', 'active')
      .where((inner) => ringServiceable(inner, nowIso)),
  );
}

/** Active members (or the one of `memberId`), joined with their Ring and its owner (for ringServiceable). */
function activeMemberRows(db: Database, memberId: string | undefined) {
  const rows = db
    .selectFrom('ring_members')
    .innerJoin('rings', 'rings.id', 'ring_members.ring_id')
    .innerJoin('customers', 'customers.id', 'rings.customer_id')
    .where('ring_members.status', '=', 'active');
  return memberId === undefined ? rows : rows.where('ring_members.id', '=', memberId);
}

// Both run for every Ring request that reads a membership by member id (loadActiveMembership):
// built and compiled once.
const serviceableRingById = precompiledQuery((db: Database, id: string, nowIso: string) =>
  db
    .selectFrom('rings')
    .innerJoin('customers', 'customers.id', 'rings.customer_id')
    .selectAll('rings')
    .where('rings.id', '=', id)
    .where((eb) => ringServiceable(eb, nowIso)),
);
const memberById = precompiledQuery((db: Database, id: string) =>
  db.selectFrom('ring_members').selectAll().where('id', '=', id),
);

/** Every column of a table, once: adding a column to schema.ts without listing it fails to compile. */
const columnsOf = <Table>(columns: Record<keyof Table, true>) =>
  Object.keys(columns) as Array<keyof Table & string>;
const SESSION_COLUMNS = columnsOf<SessionsTable>({
  id: true,
  audience: true,
  subject_id: true,
  token_hash: true,
  created_at: true,
  expires_at: true,
  last_used_at: true,
  revoked_at: true,
  ip_address: true,
  user_agent: true,
  parent_session_id: true,
  used_at: true,
  closing_expires_at: true,
});
const MEMBER_COLUMNS = columnsOf<RingMembersTable>({
  id: true,
  ring_id: true,
  customer_id: true,
  username: true,
  username_key: true,
  email: true,
  password_hash: true,
  role: true,
  status: true,
  invite_code: true,
  invite_message: true,
  is_used: true,
  used_at: true,
  last_seen_at: true,
  created_at: true,
  updated_at: true,
  first_readable_epoch: true,
  admitted_seq: true,
  log_deactivated: true,
  log_x25519: true,
  log_ed25519: true,
  refused_at: true,
  invite_expires_at: true,
});
const RING_COLUMNS = columnsOf<RingsTable>({
  id: true,
  customer_id: true,
  name: true,
  plan_slug: true,
  encryption_level: true,
  ephemeral_messages: true,
  auto_destroy_delay: true,
  allow_voice: true,
  allow_video: true,
  voice_admin_only: true,
  max_file_size_mb: true,
  screen_protection_level: true,
  screen_devtools_protection: true,
  screen_visibility_protection: true,
  screen_experimental_features: true,
  screen_recording_detection: true,
  storage_quota_bytes: true,
  kdf_salt_b64: true,
  is_active: true,
  created_at: true,
  updated_at: true,
  current_epoch: true,
  epoch_created_at: true,
  epoch_message_count: true,
  rotation_due: true,
  share_history: true,
  key_revision: true,
  log_head_seq: true,
  log_head_hash: true,
  log_level: true,
});
const ACCESS_PARTS = [
  ['sessions', 's__', SESSION_COLUMNS],
  ['ring_members', 'm__', MEMBER_COLUMNS],
  ['rings', 'r__', RING_COLUMNS],
] as const;

/** Each table's columns with their prefixed names in the joined row, worked out once. */
const PREFIXED_COLUMNS = new Map(
  ACCESS_PARTS.map(([, prefix, columns]) => [
    prefix,
    columns.map((column) => [column, prefix + column] as const),
  ]),
);

/**
 * The row of one table out of a joined row whose columns carry the table's prefix (every Ring
 * request maps three: a plain loop, without building a name per column and call).
 */
function unprefixed<Row>(joined: Record<string, unknown>, prefix: (typeof ACCESS_PARTS)[number][1]): Row {
  const row: Record<string, unknown> = {};
  for (const [column, name] of PREFIXED_COLUMNS.get(prefix) ?? []) row[column] = joined[name];
  return row as Row;
}

/**
 * A live Ring session with its member (active) and the member's Ring (serviceable:
 * findServiceableRing's rule), in one query, by the session's token hash (every Ring request starts
 * with it) or by its id (a socket's join_ring and its events' membership re-check).
 */
function ringAccessRows(db: Database, nowIso: string) {
  return activeMemberRows(db, undefined)
    .innerJoin('sessions', 'sessions.subject_id', 'ring_members.id')
    .select(
      ACCESS_PARTS.flatMap(([table, prefix, columns]) =>
        columns.map((column) => sql.ref(`${table}.${column}`).as(prefix + column)),
      ),
    )
    .where((eb) => eb.and([liveSession(eb, 'ring', nowIso), ringServiceable(eb, nowIso)]));
}
const ringAccessByTokenHash = precompiledQuery((db: Database, tokenHash: string, nowIso: string) =>
  ringAccessRows(db, nowIso).where('sessions.token_hash', '=', tokenHash),
);
const ringAccessBySessionId = precompiledQuery((db: Database, sessionId: string, nowIso: string) =>
  ringAccessRows(db, nowIso).where('sessions.id', '=', sessionId),
);

/**
 * A socket's membership re-check (every few seconds per socket): the live Ring session's member,
 * still active, and when the session ends. Not the Ring: the socket events read it apart, one read
 * per Ring for all its sockets (SharedRingRows). Two tables and 24 columns, against five tables
 * and 66 columns for ringAccessBySessionId: making each column a JavaScript value is most of such
 * a read's cost.
 */
const liveMemberBySessionId = precompiledQuery((db: Database, sessionId: string, nowIso: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('ring_members', 'ring_members.id', 'sessions.subject_id')
    .selectAll('ring_members')
    .select('sessions.expires_at as session_expires_at')
    .where('sessions.id', '=', sessionId)
    .where((eb) => liveSession(eb, 'ring', nowIso))
    .where('ring_members.status', '=', 'active'),
);

/** A joined row of ringAccessRows split into its three rows. */
function ringAccessOf(joined: Record<string, unknown> | undefined): RingAccess | undefined {
  if (!joined) return undefined;
  return {
    session: unprefixed<SessionsTable>(joined, 's__'),
    member: unprefixed<RingMemberRow>(joined, 'm__'),
    ring: unprefixed<RingRow>(joined, 'r__'),
  };
}

export interface RingAccess {
  session: SessionsTable;
  member: RingMemberRow;
  ring: RingRow;
}

/**
 * A membership change (a member deactivated or back): the next message needs a new epoch first,
 * and the members' key states move with it (key revision).
 */
function rotationDueUpdate(db: Database, ringId: string, nowIso: string) {
  return db
    .updateTable('rings')
    .set((eb) => ({ rotation_due: 1, updated_at: nowIso, key_revision: raisedKeyRevision(eb) }))
    .where('id', '=', ringId);
}

/** Rolls a reactivation back when the member was not inactive. */
class NotReactivated extends Error {}

export class RingRepository {
  constructor(private readonly db: Database) {}

  findRingById(id: string): Promise<RingRow | undefined> {
    return this.db.selectFrom('rings').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * The Ring if it serves its members now: active, its owner active with a current subscription
   * (isRingServiceable's rule in one query).
   */
  async findServiceableRing(id: string, nowIso: string): Promise<RingRow | undefined> {
    return (await serviceableRingById(this.db, id, nowIso))[0];
  }

  /** See ringAccessRows: by the session's token hash. */
  async findRingAccess(tokenHash: string, nowIso: string): Promise<RingAccess | undefined> {
    const [joined] = await ringAccessByTokenHash(this.db, tokenHash, nowIso);
    return ringAccessOf(joined as Record<string, unknown> | undefined);
  }

  /** See ringAccessRows: by the session's id. */
  async findRingAccessBySession(sessionId: string, nowIso: string): Promise<RingAccess | undefined> {
    const [joined] = await ringAccessBySessionId(this.db, sessionId, nowIso);
    return ringAccessOf(joined as Record<string, unknown> | undefined);
  }

  /**
   * The active member behind a live Ring session, and when the session expires (see
   * liveMemberBySessionId: whether the member's Ring still serves it is not read here).
   */
  async findLiveMemberBySession(
    sessionId: string,
    nowIso: string,
  ): Promise<{ member: RingMemberRow; sessionExpiresAt: string } | undefined> {
    const [row] = await liveMemberBySessionId(this.db, sessionId, nowIso);
    if (!row) return undefined;
    const { session_expires_at: sessionExpiresAt, ...member } = row;
    return { member, sessionExpiresAt };
  }

  async findMemberById(id: string): Promise<RingMemberRow | undefined> {
    return (await memberById(this.db, id))[0];
  }

  findRingsByCustomer(customerId: string): Promise<RingRow[]> {
    return this.db
      .selectFrom('rings')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  findMembers(ringId: string): Promise<RingMemberRow[]> {
    return this.db
      .selectFrom('ring_members')
      .selectAll()
      .where('ring_id', '=', ringId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Bytes stored in a Ring's file space. */
  async storageUsed(ringId: string): Promise<number> {
    const row = await this.db
      .selectFrom('ring_files')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), eb.lit(0)).as('used'))
      .where('ring_id', '=', ringId)
      .executeTakeFirstOrThrow();
    return Number(row.used);
  }

  /** Invited or active users of all the customer's Rings, owners excluded: what the plan's user limit counts. */
  async countSeats(customerId: string): Promise<number> {
    const row = await this.db
      .selectFrom('ring_members')
      .innerJoin('rings', 'rings.id', 'ring_members.ring_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('rings.customer_id', '=', customerId)
      .where('ring_members.role', '!=', 'owner')
      .where('ring_members.status', '!=', 'inactive')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Rings follow their owner's plan: limits and quota change with the subscription. */
  async updatePlanForCustomer(
    customerId: string,
    planSlug: string,
    storageQuotaBytes: number,
    nowIso: string,
    trx: Database = this.db,
  ): Promise<void> {
    await trx
      .updateTable('rings')
      .set({ plan_slug: planSlug, storage_quota_bytes: storageQuotaBytes, updated_at: nowIso })
      .where('customer_id', '=', customerId)
      .execute();
  }

  async insertRing(row: RingRow, trx: Database = this.db): Promise<void> {
    await trx.insertInto('rings').values(row).execute();
  }

  async updateRing(
    id: string,
    changes: Partial<Omit<RingRow, 'id' | 'customer_id' | 'created_at'>>,
  ): Promise<void> {
    // The level and the history setting are part of every member's key state.
    const keyState = 'encryption_level' in changes || 'share_history' in changes;
    await this.db
      .updateTable('rings')
      .set((eb) => ({ ...changes, ...(keyState ? { key_revision: raisedKeyRevision(eb) } : {}) }))
      .where('id', '=', id)
      .execute();
  }

  async insertMember(row: RingMemberRow, trx: Database = this.db): Promise<void> {
    await trx.insertInto('ring_members').values(row).execute();
  }

  /** Deletes an invitation nobody used yet: true when a row went. */
  async deleteUnusedMember(id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('ring_members')
      .where('id', '=', id)
      .where('is_used', '=', 0)
      .where('role', '!=', 'owner')
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  findMemberByInviteCode(code: string): Promise<RingMemberRow | undefined> {
    return this.db.selectFrom('ring_members').selectAll().where('invite_code', '=', code).executeTakeFirst();
  }

  /**
   * Claims an unused invitation: true for exactly one caller. The member reads from the Ring key
   * epoch current at that moment.
   */
  async claimInvitation(
    id: string,
    changes: Partial<RingMemberRow> & { used_at: string },
    trx: Database = this.db,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('ring_members')
      .set((eb) => ({
        ...changes,
        is_used: 1,
        status: 'active',
        first_readable_epoch: eb
          .selectFrom('rings')
          .select('rings.current_epoch')
          .whereRef('rings.id', '=', 'ring_members.ring_id'),
      }))
      .where('id', '=', id)
      .where('is_used', '=', 0)
      .where('status', '=', 'invited')
      // An expired code no longer opens the Ring, even for a request that read it just before.
      .where((eb) =>
        eb.or([eb('invite_expires_at', 'is', null), eb('invite_expires_at', '>', changes.used_at)]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** « Renvoyer »: a pending invitation gets a new expiry. False once it was accepted or removed. */
  async renewInvitation(id: string, expiresAt: string, nowIso: string): Promise<boolean> {
    const result = await this.db
      .updateTable('ring_members')
      .set({ invite_expires_at: expiresAt, updated_at: nowIso })
      .where('id', '=', id)
      .where('is_used', '=', 0)
      .where('status', '=', 'invited')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Active memberships of an email, with their Ring and (for owners) the owner's password hash. */
  findLoginCandidatesByEmail(email: string) {
    return this.db
      .selectFrom('ring_members')
      .innerJoin('rings', 'rings.id', 'ring_members.ring_id')
      .leftJoin('customers', 'customers.id', 'ring_members.customer_id')
      .selectAll('ring_members')
      .select(['rings.name as ring_name', 'customers.password_hash as owner_password_hash'])
      .where('ring_members.email', '=', email)
      // Deactivated members too: once their password matches they are told their access is suspended.
      .where((eb) =>
        eb.or([
          eb('ring_members.status', '=', 'active'),
          eb.and([eb('ring_members.status', '=', 'inactive'), eb('ring_members.is_used', '=', 1)]),
        ]),
      )
      .orderBy('rings.created_at')
      .execute();
  }

  async findOwnerPasswordHash(customerId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('customers')
      .select('password_hash')
      .where('id', '=', customerId)
      .executeTakeFirst();
    return row?.password_hash;
  }

  async findCustomerEmail(customerId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('customers')
      .select('email')
      .where('id', '=', customerId)
      .executeTakeFirst();
    return row?.email;
  }

  /** Every member of every Ring the customer owns, its own owner memberships included. */
  async findMemberIdsOfCustomerRings(customerId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('ring_members')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('customer_id', '=', customerId),
          eb('ring_id', 'in', eb.selectFrom('rings').select('id').where('customer_id', '=', customerId)),
        ]),
      )
      .execute();
    return rows.map((r) => r.id);
  }

  /** The customer's owner membership of one Ring (undefined when the Ring is not its own). */
  findOwnerMember(ringId: string, customerId: string): Promise<RingMemberRow | undefined> {
    return this.db
      .selectFrom('ring_members')
      .selectAll()
      .where('ring_id', '=', ringId)
      .where('customer_id', '=', customerId)
      .where('role', '=', 'owner')
      .executeTakeFirst();
  }

  /** The customer's owner memberships: it signs in to its Rings with its account password. */
  async findOwnerMemberIds(customerId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('ring_members')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('role', '=', 'owner')
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Deactivates an accepted member and makes the Ring's next key epoch due, in one transaction:
   * true when the member was active (and is now inactive).
   */
  async deactivateMember(id: string, ringId: string, nowIso: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('ring_members')
        .set({ status: 'inactive', updated_at: nowIso })
        .where('id', '=', id)
        .where('ring_id', '=', ringId)
        .where('status', '=', 'active')
        .where('is_used', '=', 1)
        .where('role', '!=', 'owner')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await rotationDueUpdate(trx, ringId, nowIso).execute();
      return true;
    });
  }

  /**
   * Reactivates a deactivated member: it reads from the next key epoch on (which becomes due, so
   * the next message creates it for the member too). True when the member was inactive. The Ring
   * row is written first: it stays locked until the commit (PostgreSQL), so no rotation can slip
   * between reading the current epoch and setting the member's first readable one.
   */
  async reactivateMember(id: string, ringId: string, nowIso: string): Promise<boolean> {
    return this.db
      .transaction()
      .execute(async (trx) => {
        const ring = await rotationDueUpdate(trx, ringId, nowIso)
          .returning('current_epoch')
          .executeTakeFirst();
        if (!ring) return false;
        const result = await trx
          .updateTable('ring_members')
          .set({ status: 'active', updated_at: nowIso, first_readable_epoch: ring.current_epoch + 1 })
          .where('id', '=', id)
          .where('ring_id', '=', ringId)
          .where('status', '=', 'inactive')
          .where('refused_at', 'is', null)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 1) return true;
        // Nothing to reactivate: leave the Ring as it was.
        throw new NotReactivated();
      })
      .catch((error: unknown) => {
        if (error instanceof NotReactivated) return false;
        throw error;
      });
  }

  async touchMember(id: string, nowIso: string): Promise<void> {
    await this.db.updateTable('ring_members').set({ last_seen_at: nowIso }).where('id', '=', id).execute();
  }

  /** Sets each member's last-seen time (member id → ISO time), a few hundred per statement. */
  async touchMembers(seenAt: ReadonlyMap<string, string>): Promise<void> {
    const entries = [...seenAt];
    for (let i = 0; i < entries.length; i += 200) {
      const chunk = entries.slice(i, i + 200);
      const times = sql.join(
        chunk.map(([id, at]) => sql`when ${id} then ${at}`),
        sql` `,
      );
      await this.db
        .updateTable('ring_members')
        .set({ last_seen_at: sql<string>`case id ${times} end` })
        .where(
          'id',
          'in',
          chunk.map(([id]) => id),
        )
        .execute();
    }
  }
}
