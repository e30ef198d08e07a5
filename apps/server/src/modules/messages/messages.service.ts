import {
  CHAT_MESSAGES,
  E2EE_MESSAGES,
  JOIN_CATCH_UP_PAGE,
  ROOM_CONVERSATION_ID,
  dmConversationId,
  type TConversationSummary,
  type TGetMessagesResponse,
  type TJoinCatchUp,
  type TJoinMissed,
  type TMessage,
  type TSentMessage,
  type ZGetMessagesQuery,
  type ZMarkReadRequest,
  type ZSendMessageRequest,
} from '@securering/contract';
import { readEnvelopeHeader, type MessageHeader } from '@securering/e2ee';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { isUniqueViolation } from '../../db/database';
import { AppError, badRequest, notFound, tooManyRequests } from '../../lib/app-error';
import { MINUTE_MS } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { firstReadableEpoch, isRotationSoon } from '../ring-keys/ring-keys.policy';
import { RingKeysService } from '../ring-keys/ring-keys.service';
import type { RingMembership } from '../rings/ring.guard';
import { RingRepository } from '../rings/ring.repository';
import { WebPushService } from '../web-push/web-push.service';
import { CATCH_UP_MAX_BYTES, catchUpGate } from './catch-up-budget';
import { toMessage, toNewMessageEvent } from './messages.mappers';
import {
  checkEnvelopeHeader,
  checkSendEpoch,
  ephemeralDeletionTime,
  ephemeralFor,
  mayAccessConversation,
  messagesPerEpoch,
  parseConversationId,
  type SendRefusal,
} from './messages.policy';
import {
  MessagesRepository,
  type ConversationRow,
  type ConversationSummaryRow,
  type MessageView,
  type StoredUnderEpoch,
} from './messages.repository';

type SendInput = z.output<typeof ZSendMessageRequest>;
type GetQuery = z.output<typeof ZGetMessagesQuery>;
type ReadInput = z.output<typeof ZMarkReadRequest>;

/** Messages one member may send per minute (on every instance together). */
export const SENDS_PER_MINUTE = 120;

/** Rings whose room row id a MessagesService keeps (the first remembered goes first). */
export const ROOM_ROW_IDS_KEPT = 10_000;

/** A conversation the caller may use: its public id, kind, row (none yet for an unused room) and members. */
interface Target {
  id: string;
  kind: 'room' | 'dm';
  row: ConversationRow | undefined;
  participants: string[];
}

function refusal(refused: SendRefusal & { ephemeralSec?: number | null }): AppError {
  const extra: Record<string, unknown> = {};
  if (refused.code) extra.code = refused.code;
  if (refused.currentEpoch !== undefined) extra.currentEpoch = refused.currentEpoch;
  if (refused.ephemeralSec !== undefined) extra.ephemeralSec = refused.ephemeralSec;
  return new AppError(refused.status, refused.error, extra);
}

/**
 * The Ring chat (issue 11): the room and private conversations, end-to-end encrypted envelopes
 * stored and relayed as they come, per-conversation sequence numbers, idempotent sends, history and
 * catch-up pages, unread counts. Every call resolves the conversation first: the room for every
 * active member, a private conversation for its two participants only (404 for anyone else).
 */
export class MessagesService {
  private readonly messages: MessagesRepository;
  private readonly rings: RingRepository;
  private readonly keys: RingKeysService;
  private readonly webPush: WebPushService;

  /**
   * The room conversation's row id by Ring, once a send has found it: a Ring's room row, created on
   * its first message, keeps its id for the Ring's life, so each send need not look it up again
   * (issue 30: one query less per message). Bounded; an entry is dropped when a store with it fails.
   */
  private readonly roomRowIds = new Map<string, string>();

  constructor(private readonly ctx: AppContext) {
    this.webPush = new WebPushService(ctx);
    this.messages = new MessagesRepository(ctx.db, ctx.database);
    this.rings = new RingRepository(ctx.db);
    this.keys = new RingKeysService(ctx);
  }

  private rememberRoomRow(ringId: string, rowId: string): void {
    if (this.roomRowIds.size >= ROOM_ROW_IDS_KEPT)
      this.roomRowIds.delete(this.roomRowIds.keys().next().value!);
    this.roomRowIds.set(ringId, rowId);
  }

  /** The conversation named `id` if the caller may use it; 404 "Conversation introuvable" otherwise. */
  private async resolve(caller: RingMembership, id: string): Promise<Target> {
    const ref = parseConversationId(id);
    const missing = () => notFound(CHAT_MESSAGES.conversationNotFound);
    if (!ref) throw missing();
    if (ref.kind === 'dm' && !ref.members.includes(caller.member.id)) throw missing();
    const row = await this.messages.findConversation(caller.ring.id, id);
    if (ref.kind === 'room') return { id, kind: 'room', row, participants: [] };
    if (!row || row.kind !== 'dm') throw missing();
    const participants = await this.messages.participants(row.id);
    if (!mayAccessConversation({ kind: 'dm', participants }, caller.member.id)) throw missing();
    return { id, kind: 'dm', row, participants };
  }

  /**
   * POST send.php. The content must be an envelope whose header names this Ring, this conversation
   * and the caller, under the Ring's current epoch; the server reads nothing else of it.
   */
  async send(
    caller: RingMembership,
    input: SendInput,
    /** The answer being made: Web Push starts once it is written. */
    reply?: FastifyReply,
  ): Promise<TSentMessage> {
    const { ctx } = this;
    const acceptedAt = performance.now();
    const { member, ring } = caller;
    const budget = await ctx.rateLimiter.hit(`message-send:${member.id}`, SENDS_PER_MINUTE, MINUTE_MS);
    if (!budget.allowed) throw tooManyRequests(Math.ceil(budget.resetMs / 1000));

    // Checked in full, its binary fields read for their size only (the server cannot open them).
    let header: MessageHeader;
    try {
      header = readEnvelopeHeader(input.content);
    } catch {
      throw badRequest(E2EE_MESSAGES.plaintextRefused);
    }
    const knownRoomRowId =
      input.conversation_id === ROOM_CONVERSATION_ID ? this.roomRowIds.get(ring.id) : undefined;
    const target: Target = knownRoomRowId
      ? { id: ROOM_CONVERSATION_ID, kind: 'room', row: undefined, participants: [] }
      : await this.resolve(caller, input.conversation_id);
    /** The conversation's row id, when it has a row yet (a room gets one with its first message). */
    const rowId = knownRoomRowId ?? target.row?.id;
    const mismatch = checkEnvelopeHeader(header, {
      ringId: ring.id,
      conversationId: target.id,
      senderId: member.id,
    });
    if (mismatch) throw refusal(mismatch);

    // A retry of a stored message answers it again, whatever happened to the epoch since. It is
    // looked up only when this send would be refused or meets the unique index of its client id
    // (issue 30: one query less for every new message).
    const answerIfStored = async (
      conversationRowId: string | undefined,
    ): Promise<TSentMessage | undefined> => {
      if (!conversationRowId) return undefined;
      const stored = await this.messages.findByClientId(conversationRowId, member.id, header.clientMessageId);
      return stored ? { message: toMessage(stored, target, member.id) } : undefined;
    };

    const now = ctx.clock.now();
    const lifetime = ephemeralFor(ring, input.isEphemeral, header.ephemeralSec);
    if (!lifetime.ok) {
      const stored = await answerIfStored(rowId);
      if (stored) return stored;
      throw refusal(lifetime.refusal);
    }
    const stale = await this.sendEpochRefusal(caller.ring, header.epoch);
    if (stale) {
      const stored = await answerIfStored(rowId);
      if (stored) return stored;
      throw refusal(stale);
    }

    const nowIso = now.toISOString();
    const conversation: Pick<ConversationRow, 'id'> = rowId
      ? { id: rowId }
      : await this.messages.ensureConversation({
          id: newId(),
          ring_id: ring.id,
          kind: 'room',
          conversation_key: ROOM_CONVERSATION_ID,
          created_at: nowIso,
        });
    const id = newId();
    // An ephemeral message goes once the members who may read it now have read it (recipients),
    // or after its delay when nobody else may.
    const recipients =
      lifetime.ephemeral_sec === null
        ? []
        : target.kind === 'room'
          ? await this.messages.roomReaders(ring.id, header.epoch, member.id)
          : target.participants.filter((participant) => participant !== member.id);
    const expiresAt =
      lifetime.ephemeral_sec === null
        ? null
        : ephemeralDeletionTime(
            { createdAt: nowIso, delaySec: lifetime.ephemeral_sec },
            recipients.map(() => ({ readAt: null })),
          );
    let stored: StoredUnderEpoch | undefined;
    try {
      stored = await this.messages.storeUnderEpoch(
        {
          id,
          ring_id: ring.id,
          conversation_id: conversation.id,
          sender_member_id: member.id,
          content: input.content,
          message_type: 'text',
          client_encrypted: 1,
          is_ephemeral: lifetime.is_ephemeral,
          expires_at: expiresAt,
          created_at: nowIso,
          client_message_id: header.clientMessageId,
          epoch: header.epoch,
          ephemeral_sec: lifetime.ephemeral_sec,
          first_read_at: null,
        },
        messagesPerEpoch(ring.encryption_level),
      );
    } catch (error) {
      if (isUniqueViolation(error)) {
        // The same message sent again (a retry), or twice at once: answer the stored one.
        const stored = await answerIfStored(conversation.id);
        if (stored) return stored;
      } else if (knownRoomRowId) this.roomRowIds.delete(ring.id);
      throw error;
    }
    // A concurrent rotation or deactivation took the epoch the send was checked against, or
    // concurrent sends used up its last messages (unless this is a retry of a stored message).
    if (stored === undefined) {
      const earlier = await answerIfStored(conversation.id);
      if (earlier) return earlier;
      throw await this.epochRefusal(ring.id, header.epoch);
    }
    const { seq, epochCount } = stored;
    if (target.kind === 'room' && !knownRoomRowId) this.rememberRoomRow(ring.id, conversation.id);
    await this.messages.addRecipients(id, recipients);

    const message = toMessage(
      {
        id,
        sender_member_id: member.id,
        sender_username: member.username,
        content: input.content,
        is_ephemeral: lifetime.is_ephemeral,
        expires_at: expiresAt,
        first_read_at: null,
        created_at: nowIso,
        seq,
        client_message_id: header.clientMessageId,
        epoch: header.epoch,
      },
      target,
      member.id,
    );
    const event = toNewMessageEvent(message, ring.id);
    // After the commit, to the conversation's members only: the Ring's room, or the two participants.
    if (target.kind === 'room') ctx.realtime.emitToRingReaders(ring.id, 'new_message', event);
    else
      for (const participant of target.participants)
        ctx.realtime.emitToMember(participant, 'new_message', event);
    ctx.operatorMetrics.messagePushDelay.observe((performance.now() - acceptedAt) / 1000);
    // Web Push to the members without a connected socket, after this answer (web-push.service.ts).
    this.webPush.messageStored(
      {
        ringId: ring.id,
        conversationRowId: conversation.id,
        kind: target.kind,
        senderId: member.id,
        epoch: header.epoch,
        participants: target.participants,
      },
      reply,
    );
    // Its epoch nears its limit: this sender creates the next one ahead (isRotationSoon). The
    // epoch's age is read only from a Ring row of that epoch (the caller's may be a second old).
    const epochCreatedAt = ring.current_epoch === header.epoch ? ring.epoch_created_at : null;
    return isRotationSoon(ring.encryption_level, { createdAt: epochCreatedAt, messageCount: epochCount }, now)
      ? { message, rotationSoon: true }
      : { message };
  }

  /**
   * Why a message of `epoch` may not be sent now, or null. The caller's Ring row may be up to a
   * second old (a socket re-reads its membership at most once a second): a refusal is checked
   * again against the current row, so a send under the epoch that just began is not refused in
   * the name of the one before it.
   */
  private async sendEpochRefusal(ring: RingMembership['ring'], epoch: number) {
    const { rotationDue } = await this.keys.e2eeSummary(ring);
    const cached = checkSendEpoch(epoch, ring, rotationDue);
    if (!cached) return null;
    const current = await this.checkCurrentRing(ring.id, epoch);
    return current ? current.refusal : cached;
  }

  /** The Ring row as it is now, and what it says of a send of `epoch` (null: sendable). */
  private async checkCurrentRing(ringId: string, epoch: number) {
    const fresh = await this.rings.findRingById(ringId);
    if (!fresh) return undefined;
    const { rotationDue } = await this.keys.e2eeSummary(fresh);
    return { fresh, refusal: checkSendEpoch(epoch, fresh, rotationDue) };
  }

  /** The refusal to answer when the epoch moved while a send was being stored. */
  private async epochRefusal(ringId: string, headerEpoch: number): Promise<AppError> {
    const current = await this.checkCurrentRing(ringId, headerEpoch);
    if (!current) return notFound(CHAT_MESSAGES.conversationNotFound);
    return refusal(
      current.refusal ?? {
        status: 409,
        error: E2EE_MESSAGES.rotationRequired,
        code: 'rotation_required',
        currentEpoch: current.fresh.current_epoch,
      },
    );
  }

  /**
   * GET get.php: a page of the conversation, oldest first, never an expired ephemeral message nor
   * one of an epoch the caller may not read. A catch-up page (`since`) keeps its place in the
   * catch-up gate until `written` settles (the answer is written out: catch-up-budget.ts).
   */
  async get(
    caller: RingMembership,
    query: GetQuery,
    written?: Promise<unknown>,
  ): Promise<Omit<TGetMessagesResponse, 'success'>> {
    const { since } = query;
    if (since === undefined) return this.page(caller, query);
    // A catch-up page: read to a byte budget, and one of few read at once (catch-up-budget.ts).
    return catchUpGate.run(() => this.readCatchUp(caller, query, since), written);
  }

  /**
   * get.php after `since` as its route serves it: the page is read inside the catch-up gate and
   * handed there to `deliver` (which serialises and writes it at once), then its messages are
   * dropped, so only `undefined` goes back up the frames that waited for the gate. A request that
   * waited its turn for seconds has its frames and promises in the old generation; a page they are
   * resumed or resolved with stays reachable from them, dead as they are, until the next full
   * collection, so on PostgreSQL every page was promoted and the heap grew by 150 MiB during a
   * catch-up of 50 pages (docs/BENCHMARKS.md, « Catch-up after a long stall »).
   */
  async deliverCatchUp(
    caller: RingMembership,
    query: GetQuery & { since: number },
    deliver: (page: Omit<TGetMessagesResponse, 'success'>) => void,
    written?: Promise<unknown>,
  ): Promise<void> {
    await catchUpGate.run(async () => {
      const page = await this.readCatchUp(caller, query, query.since);
      deliver(page);
      page.messages.length = 0;
    }, written);
  }

  /** get.php's page after `since`, read to CATCH_UP_MAX_BYTES (the caller holds a catch-up place). */
  private async readCatchUp(
    caller: RingMembership,
    query: GetQuery,
    since: number,
  ): Promise<Omit<TGetMessagesResponse, 'success'>> {
    const target = await this.resolve(caller, query.conversation_id);
    if (!target.row) return { messages: [], hasMore: false, lastSeq: 0 };
    const row = target.row;
    const { messages, hasMore } = await this.catchUpPage(caller, target, { id: row.id }, since, {
      limit: query.limit,
      maxBytes: CATCH_UP_MAX_BYTES,
      atLeastOne: true,
    });
    return { messages, hasMore, lastSeq: row.last_seq };
  }

  /** A catch-up page of one conversation, sized to `maxBytes` before it is read (findCatchUpPage). */
  private async catchUpPage(
    caller: RingMembership,
    target: Parameters<typeof toMessage>[1],
    conversation: { id: string } | { ringId: string; key: string },
    since: number,
    budget: { limit: number; maxBytes: number; atLeastOne: boolean },
  ): Promise<{ messages: TMessage[]; hasMore: boolean; bytes: number }> {
    const { rows, hasMore, bytes } = await this.messages.findCatchUpPage(conversation, {
      since,
      ...budget,
      nowIso: this.ctx.clock.now().toISOString(),
      minEpoch: firstReadableEpoch(caller.member),
    });
    const reads = await this.readsIn(rows, caller.member.id);
    const messages = rows.map((row) => toMessage(row, target, caller.member.id, reads));
    // The driver's array goes empty: frames of the database layer that waited for a connection
    // may be old, and would keep these envelopes until a full collection (see deliverCatchUp).
    rows.length = 0;
    return { messages, hasMore, bytes };
  }

  private async page(
    caller: RingMembership,
    query: GetQuery,
  ): Promise<Omit<TGetMessagesResponse, 'success'>> {
    const target = await this.resolve(caller, query.conversation_id);
    if (!target.row) return { messages: [], hasMore: false, lastSeq: 0 };
    const { rows, hasMore } = await this.messages.findPage(target.row.id, {
      since: query.since,
      before: query.before,
      limit: query.limit,
      nowIso: this.ctx.clock.now().toISOString(),
      minEpoch: firstReadableEpoch(caller.member),
    });
    const reads = await this.readsIn(rows, caller.member.id);
    return {
      messages: rows.map((row) => toMessage(row, target, caller.member.id, reads)),
      hasMore,
      lastSeq: target.row.last_seq,
    };
  }

  /** The caller's recorded first displays of the ephemeral messages of others in a page. */
  private readsIn(rows: readonly MessageView[], memberId: string): Promise<Map<string, string>> {
    const ids = rows
      .filter((row) => row.is_ephemeral === 1 && row.sender_member_id !== memberId)
      .map((row) => row.id);
    return this.messages.readsOfMessages(memberId, ids);
  }

  /**
   * The `message_read` receipt: the caller's browser displayed these ephemeral messages for the
   * first time. Only messages of a conversation the caller may read (404 otherwise), that it may
   * be served now and did not send, count; its first display of each is kept (idempotent), the
   * message's deletion time moves (ephemeralDeletionTime), and the sender hears of the first
   * display by anyone (`message_first_read`, after the commit). Answers the caller's first
   * display of each counted message.
   */
  async markDisplayed(
    caller: RingMembership,
    conversationId: string,
    messageIds: readonly string[],
  ): Promise<Array<{ messageId: string; readAt: string }>> {
    const { ctx } = this;
    const target = await this.resolve(caller, conversationId);
    if (!target.row) return [];
    const nowIso = ctx.clock.now().toISOString();
    const rows = await this.messages.readableEphemeral(target.row.id, caller.member.id, messageIds, {
      nowIso,
      minEpoch: firstReadableEpoch(caller.member),
    });
    const reads: Array<{ messageId: string; readAt: string }> = [];
    for (const row of rows) {
      const read = await this.messages.recordRead(row.id, caller.member.id, nowIso, ephemeralDeletionTime);
      if (!read) continue;
      reads.push({ messageId: row.id, readAt: read.readAt });
      if (read.first && row.sender_member_id)
        ctx.realtime.emitToMember(row.sender_member_id, 'message_first_read', {
          ringId: caller.ring.id,
          conversationId: target.id,
          messageId: row.id,
          readAt: read.readAt,
          expiresAt: read.expiresAt,
        });
    }
    return reads;
  }

  /**
   * What a reconnecting page missed in the conversations it names (join_ring's `catchUp`): for
   * each, get.php's page after `since`, at most JOIN_CATCH_UP_PAGE messages — the room in one
   * query (every active member may read it), a private conversation once its participants are
   * checked. A conversation the caller may not use is left out (the page asks get.php, which says
   * why).
   */
  async missedSince(
    caller: RingMembership,
    items: readonly TJoinCatchUp[],
    written?: Promise<unknown>,
  ): Promise<TJoinMissed[]> {
    return catchUpGate.run(() => this.readMissed(caller, items), written);
  }

  /**
   * missedSince's reads, one conversation after the other, each sized to what is left of
   * CATCH_UP_MAX_BYTES (the first message of the answer goes whatever its size): once the budget
   * is spent, the conversations left are absent from the answer (the page catches up on them with
   * get.php), and the last one read may be cut short (`hasMore`).
   */
  private async readMissed(caller: RingMembership, items: readonly TJoinCatchUp[]): Promise<TJoinMissed[]> {
    const answers: TJoinMissed[] = [];
    let used = 0;
    let kept = 0;
    for (const item of items) {
      if (used >= CATCH_UP_MAX_BYTES) break;
      const answer = await this.missedIn(caller, item, {
        limit: JOIN_CATCH_UP_PAGE,
        maxBytes: CATCH_UP_MAX_BYTES - used,
        atLeastOne: kept === 0,
      });
      if (!answer) continue;
      used += answer.bytes;
      kept += answer.messages.length;
      answers.push({
        conversationId: answer.conversationId,
        messages: answer.messages,
        hasMore: answer.hasMore,
      });
    }
    return answers;
  }

  /** One conversation's catch-up page after `since`; undefined when the caller may not use it (404). */
  private async missedIn(
    caller: RingMembership,
    { conversationId, since }: TJoinCatchUp,
    budget: { limit: number; maxBytes: number; atLeastOne: boolean },
  ): Promise<(TJoinMissed & { bytes: number }) | undefined> {
    if (conversationId === ROOM_CONVERSATION_ID) {
      // The room in one query (every active member may read it): named by its key.
      const room = { id: conversationId, kind: 'room' } as const;
      const key = { ringId: caller.ring.id, key: conversationId };
      return { conversationId, ...(await this.catchUpPage(caller, room, key, since, budget)) };
    }
    try {
      const target = await this.resolve(caller, conversationId);
      if (!target.row) return { conversationId, messages: [], hasMore: false, bytes: 0 };
      const page = await this.catchUpPage(caller, target, { id: target.row.id }, since, budget);
      return { conversationId, ...page };
    } catch (error) {
      if (error instanceof AppError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  /**
   * POST create-dm.php: the private conversation of the caller and an active member of the same
   * Ring, the same whoever asks first (the unique conversation key settles a race).
   */
  async createDm(
    caller: RingMembership,
    peerId: string,
  ): Promise<{ conversation_id: string; peer: { id: string; username: string } }> {
    const { member, ring } = caller;
    if (peerId === member.id) throw badRequest(CHAT_MESSAGES.dmSelf);
    const peer = await this.rings.findMemberById(peerId);
    if (!peer || peer.ring_id !== ring.id || peer.status !== 'active')
      throw notFound(CHAT_MESSAGES.peerNotFound);
    const key = dmConversationId(member.id, peer.id);
    if (!(await this.messages.findConversation(ring.id, key))) {
      try {
        await this.messages.insertDm(
          {
            id: newId(),
            ring_id: ring.id,
            conversation_key: key,
            created_at: this.ctx.clock.now().toISOString(),
          },
          [member.id, peer.id],
        );
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
    return { conversation_id: key, peer: { id: peer.id, username: peer.username } };
  }

  /** GET conversations/list.php: the room and the caller's private conversations, with unread counts. */
  async list(caller: RingMembership): Promise<TConversationSummary[]> {
    const { member, ring } = caller;
    const rows = await this.messages.conversationSummaries(ring.id, member.id, ROOM_CONVERSATION_ID, {
      nowIso: this.ctx.clock.now().toISOString(),
      minEpoch: firstReadableEpoch(member),
    });
    const summary = (row: ConversationSummaryRow | undefined) => ({
      lastSeq: row?.last_seq ?? 0,
      lastReadSeq: row?.last_read_seq ?? 0,
      unread: Number(row?.unread ?? 0),
      lastActivityAt: row?.last_activity_at ?? null,
    });
    const dms = rows
      .filter((row) => row.kind === 'dm' && row.peer_id !== null)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    return [
      {
        id: ROOM_CONVERSATION_ID,
        kind: 'room',
        peer: null,
        ...summary(rows.find((row) => row.kind === 'room')),
      },
      ...dms.map((dm) => ({
        id: dm.conversation_key,
        kind: 'dm' as const,
        peer: { id: dm.peer_id ?? '', username: dm.peer_username ?? '' },
        ...summary(dm),
      })),
    ];
  }

  /** POST conversations/read.php: the caller has read up to `seq` (capped, never moved back). */
  async markRead(
    caller: RingMembership,
    input: ReadInput,
  ): Promise<{ conversation_id: string; lastReadSeq: number; unread: number }> {
    const { member } = caller;
    const target = await this.resolve(caller, input.conversation_id);
    if (!target.row) return { conversation_id: target.id, lastReadSeq: 0, unread: 0 };
    const seq = Math.min(input.seq, target.row.last_seq);
    const nowIso = this.ctx.clock.now().toISOString();
    if (seq > 0) await this.messages.markRead(target.row.id, member.id, seq, nowIso);
    const [reads, unread] = await Promise.all([
      this.messages.readsOf(member.id, [target.row.id]),
      this.messages.unreadCounts([target.row.id], member.id, nowIso, firstReadableEpoch(member)),
    ]);
    return {
      conversation_id: target.id,
      lastReadSeq: reads.get(target.row.id) ?? 0,
      unread: unread.get(target.row.id) ?? 0,
    };
  }
}
