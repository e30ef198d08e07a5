import { sql, type ExpressionBuilder, type JoinBuilder, type QueryCreator } from 'kysely';
import type { Database, DatabaseHandle, SyncQueries } from '../../db/database';
import { precompiledQuery } from '../../db/precompiled-query';
import { fitCatchUp } from './catch-up-budget';
import type { ConversationsTable, DB, MessagesTable } from '../../db/schema';

export type ConversationRow = ConversationsTable;
export type MessageRow = MessagesTable;
export type MessageWithSender = MessageRow & { sender_username: string | null };
/** The columns a served message needs (toMessage): history pages read these only. */
export const MESSAGE_VIEW_COLUMNS = [
  'messages.id',
  'messages.seq',
  'messages.client_message_id',
  'messages.epoch',
  'messages.content',
  'messages.is_ephemeral',
  'messages.sender_member_id',
  'messages.created_at',
  'messages.expires_at',
  'messages.first_read_at',
] as const;
export type MessageView = Pick<
  MessageRow,
  | 'id'
  | 'seq'
  | 'client_message_id'
  | 'epoch'
  | 'content'
  | 'is_ephemeral'
  | 'sender_member_id'
  | 'created_at'
  | 'expires_at'
  | 'first_read_at'
> & { sender_username: string | null };

/** A conversations query joined with the member's read marks (`r`). */
type WithReadMark = DB & { r: DB['conversation_reads'] };

/** The columns both branches of conversationSummaries read, besides the peer and the count. */
const SUMMARY_COLUMNS = [
  'conversations.id',
  'conversations.conversation_key',
  'conversations.kind',
  'conversations.last_seq',
  'conversations.created_at',
  'r.last_read_seq',
] as const;

/** A line of the conversations list as conversationSummaries reads it (`unread`: a count). */
export interface ConversationSummaryRow {
  id: string;
  conversation_key: string;
  kind: 'room' | 'dm';
  last_seq: number;
  created_at: string;
  peer_id: string | null;
  peer_username: string | null;
  last_read_seq: number | null;
  /** A count: a string on PostgreSQL (bigint), never null. */
  unread: number | string | null;
  /** When the latest message the member may read was stored; null: none. */
  last_activity_at: string | null;
}

/** Messages a member may be served: not expired, and of an epoch it may read. */
function visible(nowIso: string, minEpoch: number) {
  return (eb: ExpressionBuilder<DB, 'messages'>) =>
    eb.and([
      eb.or([eb('messages.expires_at', 'is', null), eb('messages.expires_at', '>', nowIso)]),
      eb('messages.epoch', '>=', minEpoch),
    ]);
}

/**
 * The ids of the members who may read a new message of the Ring's room under `epoch` (admitted by
 * the log, active, holding that epoch), but its sender: one rule for ephemeral reads and Web Push.
 */
export function roomReaderIds(db: QueryCreator<DB>, ringId: string, epoch: number, senderId: string) {
  return db
    .selectFrom('ring_members')
    .select('id')
    .where('ring_id', '=', ringId)
    .where('status', '=', 'active')
    .where('admitted_seq', 'is not', null)
    .where('log_deactivated', '=', 0)
    .where('first_readable_epoch', '<=', epoch)
    .where('id', '!=', senderId);
}

/** countUnderEpoch's compare-and-set, returning the epoch's new count (a transaction or a CTE). */
function countUnderEpochUpdate(db: QueryCreator<DB>, ringId: string, epoch: number, maxCount: number) {
  return db
    .updateTable('rings')
    .set((eb) => ({ epoch_message_count: eb('epoch_message_count', '+', 1) }))
    .where('id', '=', ringId)
    .where('current_epoch', '=', epoch)
    .where('rotation_due', '=', 0)
    .where('epoch_message_count', '<', maxCount)
    .returning('epoch_message_count');
}

/** A stored message's sequence number, and how many messages its epoch carries with it. */
export interface StoredUnderEpoch {
  seq: number;
  epochCount: number;
}

/** What a send stores besides the sequence number, which the store gives it. */
export type NewMessage = Omit<MessageRow, 'seq'>;

/** Messages with their sender's name: the columns history pages read, and only those. */
const pageRows = (db: Database) =>
  db
    .selectFrom('messages')
    .leftJoin('ring_members as sender', 'sender.id', 'messages.sender_member_id')
    .select([...MESSAGE_VIEW_COLUMNS, 'sender.username as sender_username']);

/** Visible messages of a conversation (pageRows). */
const pageQuery = (db: Database, conversationId: string, nowIso: string, minEpoch: number) =>
  pageRows(db).where('messages.conversation_id', '=', conversationId).where(visible(nowIso, minEpoch));

// History pages and the conversation lookup run on every history read: built and compiled once.
const latestPage = precompiledQuery(
  (db: Database, conversationId: string, nowIso: string, minEpoch: number, limit: number) =>
    pageQuery(db, conversationId, nowIso, minEpoch).orderBy('messages.seq', 'desc').limit(limit),
);
/** The page just before (`<`, latest first) or just after (`>`, oldest first) a sequence number. */
const pageNextTo = (side: '<' | '>') =>
  precompiledQuery(
    (db: Database, conversationId: string, nowIso: string, minEpoch: number, seq: number, limit: number) =>
      pageQuery(db, conversationId, nowIso, minEpoch)
        .where('messages.seq', side, seq)
        .orderBy('messages.seq', side === '<' ? 'desc' : 'asc')
        .limit(limit),
  );
const pageBefore = pageNextTo('<');
const pageAfter = pageNextTo('>');
/**
 * The sizes (octet_length, which reads no envelope) of the visible messages of a conversation after
 * a sequence number, oldest first: what a catch-up page weighs before it is read (findCatchUpPage).
 */
const sizesAfter = precompiledQuery(
  (db: Database, conversationId: string, nowIso: string, minEpoch: number, seq: number, limit: number) =>
    db
      .selectFrom('messages')
      .select(['messages.seq', sql<number | string>`octet_length(messages.content)`.as('size')])
      .where('messages.conversation_id', '=', conversationId)
      .where(visible(nowIso, minEpoch))
      .where('messages.seq', '>', seq)
      .orderBy('messages.seq', 'asc')
      .limit(limit),
);
/** sizesAfter for a conversation named by its key in a Ring, with the conversation's id. */
const sizesAfterByKey = precompiledQuery(
  (db: Database, ringId: string, key: string, nowIso: string, minEpoch: number, seq: number, limit: number) =>
    db
      .selectFrom('messages')
      .innerJoin('conversations', 'conversations.id', 'messages.conversation_id')
      .select([
        'messages.conversation_id',
        'messages.seq',
        sql<number | string>`octet_length(messages.content)`.as('size'),
      ])
      .where('conversations.ring_id', '=', ringId)
      .where('conversations.conversation_key', '=', key)
      .where(visible(nowIso, minEpoch))
      .where('messages.seq', '>', seq)
      .orderBy('messages.seq', 'asc')
      .limit(limit),
);
/** The visible messages after `since` up to `last` included, oldest first (a sized catch-up page). */
const pageBetween = precompiledQuery(
  (
    db: Database,
    conversationId: string,
    nowIso: string,
    minEpoch: number,
    since: number,
    last: number,
    limit: number,
  ) =>
    pageQuery(db, conversationId, nowIso, minEpoch)
      .where('messages.seq', '>', since)
      .where('messages.seq', '<=', last)
      .orderBy('messages.seq', 'asc')
      .limit(limit),
);
/**
 * MessagesRepository.conversationSummaries' statement, built and compiled once (every reconnecting
 * page asks for it: Kysely's query tree cost more than the statement, and PostgreSQL plans it once
 * per connection).
 */
const summariesOf = precompiledQuery(
  (db: Database, ringId: string, memberId: string, roomKey: string, nowIso: string, minEpoch: number) => {
    const unread = (eb: ExpressionBuilder<WithReadMark, 'conversations' | 'r'>) =>
      eb
        .selectFrom('messages')
        .select((count) => count.fn.countAll<number | string>().as('n'))
        .whereRef('messages.conversation_id', '=', 'conversations.id')
        .where((m) => m('messages.seq', '>', m.fn.coalesce('r.last_read_seq', m.lit(0))))
        .where((m) =>
          m.or([m('messages.sender_member_id', 'is', null), m('messages.sender_member_id', '!=', memberId)]),
        )
        .where(visible(nowIso, minEpoch))
        .as('unread');
    // The latest message it may read (the unique (conversation_id, seq) index, read backwards).
    const lastActivity = (eb: ExpressionBuilder<WithReadMark, 'conversations' | 'r'>) =>
      eb
        .selectFrom('messages')
        .select('messages.created_at')
        .whereRef('messages.conversation_id', '=', 'conversations.id')
        .where(visible(nowIso, minEpoch))
        .orderBy('messages.seq', 'desc')
        .limit(1)
        .as('last_activity_at');
    // The member's read mark in each conversation, if it has one.
    const readMark = (join: JoinBuilder<WithReadMark, 'conversations' | 'r'>) =>
      join.onRef('r.conversation_id', '=', 'conversations.id').on('r.member_id', '=', memberId);
    const room = db
      .selectFrom('conversations')
      .leftJoin('conversation_reads as r', readMark)
      .select([
        ...SUMMARY_COLUMNS,
        sql<string | null>`null`.as('peer_id'),
        sql<string | null>`null`.as('peer_username'),
        unread,
        lastActivity,
      ])
      .where('conversations.ring_id', '=', ringId)
      .where('conversations.conversation_key', '=', roomKey);
    const dms = db
      .selectFrom('conversation_participants as mine')
      .innerJoin('conversations', 'conversations.id', 'mine.conversation_id')
      .innerJoin('conversation_participants as theirs', 'theirs.conversation_id', 'conversations.id')
      .innerJoin('ring_members as peer', 'peer.id', 'theirs.member_id')
      .leftJoin('conversation_reads as r', readMark)
      .select([
        ...SUMMARY_COLUMNS,
        'peer.id as peer_id',
        'peer.username as peer_username',
        unread,
        lastActivity,
      ])
      .where('mine.member_id', '=', memberId)
      .where('conversations.ring_id', '=', ringId)
      .where('conversations.kind', '=', 'dm')
      .where('theirs.member_id', '!=', memberId);
    return room.unionAll(dms);
  },
);
const conversationByKey = precompiledQuery((db: Database, ringId: string, key: string) =>
  db
    .selectFrom('conversations')
    .selectAll()
    .where('ring_id', '=', ringId)
    .where('conversation_key', '=', key),
);

/** Every column of a message a send stores besides its sequence number, in the order bound. */
const STORED_COLUMNS = [
  'id',
  'ring_id',
  'conversation_id',
  'sender_member_id',
  'content',
  'message_type',
  'client_encrypted',
  'is_ephemeral',
  'expires_at',
  'created_at',
  'client_message_id',
  'epoch',
  'ephemeral_sec',
  'first_read_at',
] as const satisfies ReadonlyArray<keyof NewMessage>;
/** The values of STORED_COLUMNS, in their order: the arguments of the precompiled inserts. */
type ValuesOf<Columns extends ReadonlyArray<keyof NewMessage>> = {
  -readonly [K in keyof Columns]: NewMessage[Columns[K] & keyof NewMessage];
};
type StoredValues = ValuesOf<typeof STORED_COLUMNS>;
// A column added to the messages table must be added to STORED_COLUMNS (or the insert would leave it out).
type UnstoredColumn = Exclude<keyof NewMessage, (typeof STORED_COLUMNS)[number]>;
const everyColumnStored: [UnstoredColumn] extends [never] ? true : UnstoredColumn = true;
void everyColumnStored;

const storedValues = (message: NewMessage): StoredValues =>
  STORED_COLUMNS.map((column) => message[column]) as unknown as StoredValues;
const storedRow = (values: StoredValues): NewMessage =>
  Object.fromEntries(STORED_COLUMNS.map((column, i) => [column, values[i]])) as unknown as NewMessage;

// A send's statements (issue 30: building them cost more than SQLite running them), run inside
// the send's transaction on SQLite with `bind` (see precompiledQuery).
const countUnderEpochStatement = precompiledQuery(
  (db: Database, ringId: string, epoch: number, maxCount: number) =>
    countUnderEpochUpdate(db, ringId, epoch, maxCount),
);
const nextSeqStatement = precompiledQuery((db: Database, conversationId: string) =>
  db
    .updateTable('conversations')
    .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
    .where('id', '=', conversationId)
    .returning('last_seq'),
);
const insertMessageStatement = precompiledQuery(
  (db: Database, seq: number, ...values: StoredValues) =>
    db.insertInto('messages').values({ ...storedRow(values), seq }),
  1 + STORED_COLUMNS.length,
);
/**
 * storeUnderEpoch on PostgreSQL in one statement: the count's compare-and-set, the numbering that
 * reads it (so it numbers nothing when the count was refused) and the insert that reads the
 * number. `counted`: the epoch's count with this message, null when refused; `seq`: null when
 * counted but not numbered.
 */
const storeUnderEpochStatement = precompiledQuery(
  (db: Database, maxCount: number, ...values: StoredValues) => {
    const message = storedRow(values);
    return db
      .with('counted', (db) => countUnderEpochUpdate(db, message.ring_id, message.epoch, maxCount))
      .with('numbered', (db) =>
        db
          .updateTable('conversations')
          .from('counted')
          .set((eb) => ({ last_seq: eb('conversations.last_seq', '+', 1) }))
          .where('conversations.id', '=', message.conversation_id)
          .returning('conversations.last_seq'),
      )
      .with('inserted', (db) =>
        db
          .insertInto('messages')
          .columns([...STORED_COLUMNS, 'seq'])
          .expression((eb) =>
            eb
              .selectFrom('numbered')
              .select([
                ...STORED_COLUMNS.map((column) => eb.val(message[column]).as(column)),
                'numbered.last_seq as seq',
              ]),
          )
          .returning('seq'),
      )
      .selectNoFrom((eb) => [
        eb.selectFrom('counted').select('epoch_message_count').as('counted'),
        eb.selectFrom('inserted').select('seq').as('seq'),
      ]);
  },
  1 + STORED_COLUMNS.length,
);

/**
 * The SQL of conversations and messages. Sequence numbers come from an atomic increment of the
 * conversation's `last_seq` in the same unit as the insert (a row lock on PostgreSQL, the single
 * writer on SQLite), so concurrent sends get 1, 2, 3… without gaps or duplicates. The database's
 * dialect chooses how a send is stored (`storeUnderEpoch`: one statement on PostgreSQL, SQLite's
 * synchronous transaction).
 */
export class MessagesRepository {
  constructor(
    private readonly db: Database,
    /** The database `db` belongs to: its dialect, and SQLite's synchronous transaction. */
    private readonly database: Pick<DatabaseHandle, 'dialect' | 'immediateTransaction'>,
  ) {}

  async findConversation(
    ringId: string,
    key: string,
    trx: Database = this.db,
  ): Promise<ConversationRow | undefined> {
    return (await conversationByKey(trx, ringId, key))[0];
  }

  /** The Ring's room conversation, created on first use (concurrent callers get the same row). */
  async ensureConversation(
    row: Pick<ConversationRow, 'id' | 'ring_id' | 'kind' | 'conversation_key' | 'created_at'>,
  ): Promise<ConversationRow> {
    await this.db
      .insertInto('conversations')
      .values({ ...row, last_seq: 0 })
      .onConflict((oc) => oc.columns(['ring_id', 'conversation_key']).doNothing())
      .execute();
    return (await this.findConversation(row.ring_id, row.conversation_key))!;
  }

  /** A private conversation and its two participants, in one transaction. */
  async insertDm(
    row: Pick<ConversationRow, 'id' | 'ring_id' | 'conversation_key' | 'created_at'>,
    memberIds: readonly [string, string],
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('conversations')
        .values({ ...row, kind: 'dm', last_seq: 0 })
        .execute();
      await trx
        .insertInto('conversation_participants')
        .values(
          memberIds.map((member_id) => ({ conversation_id: row.id, member_id, created_at: row.created_at })),
        )
        .execute();
    });
  }

  async participants(conversationId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('conversation_participants')
      .select('member_id')
      .where('conversation_id', '=', conversationId)
      .execute();
    return rows.map((r) => r.member_id);
  }

  /** Participants of several conversations, by conversation id. */
  async participantsOf(conversationIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (conversationIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('conversation_participants')
      .select(['conversation_id', 'member_id'])
      .where('conversation_id', 'in', [...conversationIds])
      .execute();
    for (const row of rows)
      out.set(row.conversation_id, [...(out.get(row.conversation_id) ?? []), row.member_id]);
    return out;
  }

  /**
   * The conversations list of a member in one statement: the Ring's room (when it exists) and the
   * member's private conversations with their peer, each with the member's read mark and how many
   * messages from others it may read past it (unreadCounts' rule). Two branches of a UNION ALL,
   * each starting from its own index (the room by its key, the private ones from the member's
   * participations), rather than four statements in two round trips; every reconnecting page asks
   * for it in its join_ring.
   */
  conversationSummaries(
    ringId: string,
    memberId: string,
    roomKey: string,
    visibleAt: { nowIso: string; minEpoch: number },
  ): Promise<ConversationSummaryRow[]> {
    return summariesOf(this.db, ringId, memberId, roomKey, visibleAt.nowIso, visibleAt.minEpoch);
  }

  findByClientId(
    conversationId: string,
    senderId: string,
    clientMessageId: string,
    trx: Database = this.db,
  ): Promise<MessageWithSender | undefined> {
    return trx
      .selectFrom('messages')
      .leftJoin('ring_members as sender', 'sender.id', 'messages.sender_member_id')
      .selectAll('messages')
      .select('sender.username as sender_username')
      .where('messages.conversation_id', '=', conversationId)
      .where('messages.sender_member_id', '=', senderId)
      .where('messages.client_message_id', '=', clientMessageId)
      .executeTakeFirst();
  }

  /**
   * Stores a message if its Ring may still take one under `message.epoch`: counts it under the
   * epoch if that epoch is still current, no rotation is due and the epoch has carried fewer than
   * `maxCount` messages (a compare-and-set against a concurrent rotation, deactivation or send),
   * numbers it in its conversation (an atomic increment of `last_seq`) and inserts it, all or
   * nothing. Returns its sequence number and the epoch's message count with it (`epochCount`), or
   * undefined when refused. A duplicate client message id fails with the unique violation and
   * stores nothing.
   *
   * Every send to a Ring writes the same two rows (the Ring's count, the conversation's last_seq),
   * so sends to one Ring wait on each other's row locks until commit. On PostgreSQL this is one
   * statement (data-modifying CTEs, committed on its own), so the locks last one round trip, not
   * a transaction of five. SQLite has a single writer: its three statements run in one
   * synchronous transaction (DatabaseHandle.immediateTransaction; issue 30: Kysely's transaction,
   * five awaited statements, cost more than SQLite's own work), at once, or once the Kysely
   * transaction open on the connection has ended. Both run precompiled statements (compiled for
   * the repository's database and bound: precompiledQuery's `bind`), so a send builds no query.
   */
  async storeUnderEpoch(message: NewMessage, maxCount: number): Promise<StoredUnderEpoch | undefined> {
    if (this.database.dialect === 'postgres') return this.storeUnderEpochInOneStatement(message, maxCount);
    const { immediateTransaction } = this.database;
    if (!immediateTransaction) throw new Error('storeUnderEpoch: SQLite needs its database handle');
    const store = (queries: SyncQueries): StoredUnderEpoch | undefined => {
      const [counted] = queries.all(
        countUnderEpochStatement.bind(this.db, message.ring_id, message.epoch, maxCount),
      );
      if (!counted) return undefined;
      const [numbered] = queries.all(nextSeqStatement.bind(this.db, message.conversation_id));
      if (!numbered) throw new Error(`conversation ${message.conversation_id} not found`);
      queries.run(insertMessageStatement.bind(this.db, numbered.last_seq, ...storedValues(message)));
      return { seq: numbered.last_seq, epochCount: counted.epoch_message_count };
    };
    const now = immediateTransaction(store);
    if (now) return now.value;
    // A Kysely transaction is open: once it ends, Kysely hands the connection over, with none open.
    return this.db.connection().execute(async () => {
      const then = immediateTransaction(store);
      if (!then) throw new Error('storeUnderEpoch: a transaction is still open on the connection');
      return then.value;
    });
  }

  private async storeUnderEpochInOneStatement(
    message: NewMessage,
    maxCount: number,
  ): Promise<StoredUnderEpoch | undefined> {
    const [row] = await storeUnderEpochStatement(this.db, maxCount, ...storedValues(message));
    if (!row) throw new Error('storeUnderEpoch: no row');
    if (row.counted === null) return undefined;
    // Counted but not numbered: the conversation is gone (its Ring deleted meanwhile).
    if (row.seq === null) throw new Error(`conversation ${message.conversation_id} not found`);
    return { seq: row.seq, epochCount: Number(row.counted) };
  }

  /**
   * A page of visible messages, oldest first. `since`: the messages after it (ascending from
   * there); otherwise the latest ones (before `before` when given). `hasMore`: more exist in the
   * direction asked.
   */
  async findPage(
    conversationId: string,
    options: { since?: number; before?: number; limit: number; nowIso: string; minEpoch: number },
  ): Promise<{ rows: MessageView[]; hasMore: boolean }> {
    const { since, before, limit, nowIso, minEpoch } = options;
    // Each shape of the page query (after `since`, before `before`, or the latest) is compiled once.
    const rows =
      since !== undefined
        ? await pageAfter(this.db, conversationId, nowIso, minEpoch, since, limit + 1)
        : before !== undefined
          ? await pageBefore(this.db, conversationId, nowIso, minEpoch, before, limit + 1)
          : await latestPage(this.db, conversationId, nowIso, minEpoch, limit + 1);
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    return { rows: since !== undefined ? page : page.reverse(), hasMore };
  }

  /**
   * A catch-up page after `since`, sized to a byte budget before it is read: the sizes of the next
   * `limit` + 1 visible messages first (no envelope read), then only the messages that fit
   * (fitCatchUp: `maxBytes`, the first one whatever its size with `atLeastOne`). `hasMore`: visible
   * messages after the page exist. `bytes`: the envelope bytes of the page. The conversation is
   * named by its id, or by its key in a Ring (none yet: no message).
   */
  async findCatchUpPage(
    conversation: { id: string } | { ringId: string; key: string },
    options: {
      since: number;
      limit: number;
      maxBytes: number;
      atLeastOne: boolean;
      nowIso: string;
      minEpoch: number;
    },
  ): Promise<{ rows: MessageView[]; hasMore: boolean; bytes: number }> {
    const { since, limit, maxBytes, atLeastOne, nowIso, minEpoch } = options;
    let conversationId: string | undefined;
    let sizes: Array<{ seq: number; size: number | string }>;
    if ('id' in conversation) {
      conversationId = conversation.id;
      sizes = await sizesAfter(this.db, conversation.id, nowIso, minEpoch, since, limit + 1);
    } else {
      const keyed = await sizesAfterByKey(
        this.db,
        conversation.ringId,
        conversation.key,
        nowIso,
        minEpoch,
        since,
        limit + 1,
      );
      conversationId = keyed[0]?.conversation_id;
      sizes = keyed;
    }
    const weights = sizes.slice(0, limit).map((row) => Number(row.size));
    const count = fitCatchUp(weights, maxBytes, atLeastOne);
    const hasMore = sizes.length > count;
    if (count === 0 || conversationId === undefined) return { rows: [], hasMore, bytes: 0 };
    // A message of the page that expired between the two reads is left out (it may not be served).
    const rows = await pageBetween(
      this.db,
      conversationId,
      nowIso,
      minEpoch,
      since,
      sizes[count - 1]!.seq,
      count,
    );
    const bytes = weights.slice(0, count).reduce((sum, size) => sum + size, 0);
    return { rows, hasMore, bytes };
  }

  /** Visible messages from others after what the member has read, per conversation. */
  async unreadCounts(
    conversationIds: readonly string[],
    memberId: string,
    nowIso: string,
    minEpoch: number,
  ): Promise<Map<string, number>> {
    if (conversationIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('messages')
      .leftJoin('conversation_reads as r', (join) =>
        join.onRef('r.conversation_id', '=', 'messages.conversation_id').on('r.member_id', '=', memberId),
      )
      .select(['messages.conversation_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('messages.conversation_id', 'in', [...conversationIds])
      .where((eb) => eb('messages.seq', '>', eb.fn.coalesce('r.last_read_seq', eb.lit(0))))
      .where((eb) =>
        eb.or([eb('messages.sender_member_id', 'is', null), eb('messages.sender_member_id', '!=', memberId)]),
      )
      .where(visible(nowIso, minEpoch))
      .groupBy('messages.conversation_id')
      .execute();
    return new Map(rows.map((r) => [r.conversation_id, Number(r.n)]));
  }

  async readsOf(memberId: string, conversationIds: readonly string[]): Promise<Map<string, number>> {
    if (conversationIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('conversation_reads')
      .select(['conversation_id', 'last_read_seq'])
      .where('member_id', '=', memberId)
      .where('conversation_id', 'in', [...conversationIds])
      .execute();
    return new Map(rows.map((r) => [r.conversation_id, r.last_read_seq]));
  }

  /** Moves the member's read mark forward to `seq` (never back). */
  async markRead(conversationId: string, memberId: string, seq: number, nowIso: string): Promise<void> {
    const moved = await this.db
      .updateTable('conversation_reads')
      .set({ last_read_seq: seq, updated_at: nowIso })
      .where('conversation_id', '=', conversationId)
      .where('member_id', '=', memberId)
      .where('last_read_seq', '<', seq)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) > 0) return;
    await this.db
      .insertInto('conversation_reads')
      .values({
        conversation_id: conversationId,
        member_id: memberId,
        last_read_seq: seq,
        updated_at: nowIso,
      })
      .onConflict((oc) => oc.columns(['conversation_id', 'member_id']).doNothing())
      .execute();
  }

  /**
   * Deletes up to `limit` expired messages and returns them. Safe with several instances: each
   * row is deleted, and so returned, by exactly one of them.
   */
  deleteExpired(
    nowIso: string,
    limit: number,
  ): Promise<Array<Pick<MessageRow, 'id' | 'ring_id' | 'conversation_id'>>> {
    return this.db
      .deleteFrom('messages')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('messages')
          .select('id')
          .where('expires_at', '<=', nowIso)
          .orderBy('expires_at')
          .limit(limit),
      )
      .where('expires_at', '<=', nowIso)
      .returning(['id', 'ring_id', 'conversation_id'])
      .execute();
  }

  /**
   * The members who may read a new message of the Ring's room under `epoch` (see
   * {@link roomReaderIds}): whose reads decide when an ephemeral one goes.
   */
  async roomReaders(ringId: string, epoch: number, senderId: string): Promise<string[]> {
    const rows = await roomReaderIds(this.db, ringId, epoch, senderId).execute();
    return rows.map((row) => row.id);
  }

  /** The members present at sending of an ephemeral message, none of whom has read it yet. */
  async addRecipients(messageId: string, memberIds: readonly string[]): Promise<void> {
    if (memberIds.length === 0) return;
    await this.db
      .insertInto('message_reads')
      .values(
        memberIds.map((member_id) => ({ message_id: messageId, member_id, recipient: 1, read_at: null })),
      )
      // A read that came first (it raced the send) stays, now counted as a recipient's.
      .onConflict((oc) => oc.columns(['message_id', 'member_id']).doUpdateSet({ recipient: 1 }))
      .execute();
  }

  /**
   * Ephemeral messages of a conversation among `ids` that `memberId` may read now and did not send
   * (what a read receipt may name).
   */
  readableEphemeral(
    conversationId: string,
    memberId: string,
    ids: readonly string[],
    visibleAt: { nowIso: string; minEpoch: number },
  ): Promise<Array<Pick<MessageRow, 'id' | 'sender_member_id'>>> {
    return this.db
      .selectFrom('messages')
      .select(['messages.id', 'messages.sender_member_id'])
      .where('messages.conversation_id', '=', conversationId)
      .where('messages.id', 'in', [...ids])
      .where('messages.is_ephemeral', '=', 1)
      .where('messages.ephemeral_sec', 'is not', null)
      .where((eb) =>
        eb.or([eb('messages.sender_member_id', 'is', null), eb('messages.sender_member_id', '!=', memberId)]),
      )
      .where(visible(visibleAt.nowIso, visibleAt.minEpoch))
      .execute();
  }

  /**
   * Records `memberId`'s first display of an ephemeral message (a later one changes nothing) and
   * moves its deletion time (`deletionTime` over the recipients' reads; left as it is when no
   * recipient is recorded). The message row is locked first (an update, then `for update` on
   * PostgreSQL), so concurrent readers of one message go one after the other and the last sees
   * every read. Returns the member's first
   * read, whether this was the first display by anyone, and the deletion time.
   */
  async recordRead(
    messageId: string,
    memberId: string,
    nowIso: string,
    deletionTime: (
      message: { createdAt: string; delaySec: number },
      recipients: Array<{ readAt: string | null }>,
    ) => string,
  ): Promise<{ readAt: string; first: boolean; expiresAt: string | null } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const first = await trx
        .updateTable('messages')
        .set({ first_read_at: nowIso })
        .where('id', '=', messageId)
        .where('first_read_at', 'is', null)
        .executeTakeFirst();
      let locked = trx
        .selectFrom('messages')
        .select(['created_at', 'ephemeral_sec', 'expires_at'])
        .where('id', '=', messageId);
      // SQLite has a single writer: the transaction is already alone.
      if (this.database.dialect === 'postgres') locked = locked.forUpdate();
      const message = await locked.executeTakeFirst();
      if (!message || message.ephemeral_sec === null) return undefined;
      await trx
        .insertInto('message_reads')
        .values({ message_id: messageId, member_id: memberId, recipient: 0, read_at: nowIso })
        .onConflict((oc) =>
          oc
            .columns(['message_id', 'member_id'])
            .doUpdateSet({ read_at: nowIso })
            .where('message_reads.read_at', 'is', null),
        )
        .execute();
      const reads = await trx
        .selectFrom('message_reads')
        .select(['member_id', 'recipient', 'read_at'])
        .where('message_id', '=', messageId)
        .execute();
      const recipients = reads.filter((r) => r.recipient === 1).map((r) => ({ readAt: r.read_at }));
      let expiresAt = message.expires_at;
      if (recipients.length > 0) {
        const due = deletionTime(
          { createdAt: message.created_at, delaySec: message.ephemeral_sec },
          recipients,
        );
        if (expiresAt === null || due < expiresAt) {
          await trx.updateTable('messages').set({ expires_at: due }).where('id', '=', messageId).execute();
          expiresAt = due;
        }
      }
      const mine = reads.find((r) => r.member_id === memberId)?.read_at ?? nowIso;
      return { readAt: mine, first: Number(first.numUpdatedRows) === 1, expiresAt };
    });
  }

  /** `memberId`'s recorded first displays of these messages, by message id. */
  async readsOfMessages(memberId: string, messageIds: readonly string[]): Promise<Map<string, string>> {
    if (messageIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('message_reads')
      .select(['message_id', 'read_at'])
      .where('member_id', '=', memberId)
      .where('message_id', 'in', [...messageIds])
      .where('read_at', 'is not', null)
      .execute();
    return new Map(rows.map((r) => [r.message_id, r.read_at!]));
  }

  conversationsByIds(ids: readonly string[]): Promise<ConversationRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('conversations')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }
}
