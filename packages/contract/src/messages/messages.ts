import { z } from 'zod';
import { successOf, zBoundedString } from '../common';

/**
 * Messages and conversations of a Ring (spec 2 §3 Message / Send payload, §6 DM rules, §7 calls).
 * `content` is always an end-to-end encrypted envelope (packages/e2ee): the server stores and
 * relays ciphertext only, reading nothing but the envelope's header (ring, conversation, epoch,
 * sender, client message id).
 */

export const ROOM_CONVERSATION_ID = 'room:general';

/**
 * A private conversation's id: `dm:<memberA>:<memberB>` with the two member ids sorted, the same
 * whoever asks first (create-dm.php answers it).
 */
export function dmConversationId(memberA: string, memberB: string): string {
  const [first, second] = [memberA, memberB].sort();
  return `dm:${first}:${second}`;
}

/** The chat calls (all Ring-member authenticated). */
export const CHAT_API_PATHS = {
  send: '/api/messages/send.php',
  get: '/api/messages/get.php',
  createDm: '/api/conversations/create-dm.php',
  list: '/api/conversations/list.php',
  read: '/api/conversations/read.php',
} as const;

export const CHAT_MESSAGES = {
  loadFailed: 'Impossible de charger les messages',
  sendFailed: 'Impossible d’envoyer le message',
  sent: 'Message envoyé',
  empty: 'Aucun message pour le moment',
  loading: 'Chargement des messages…',
  conversationNotFound: 'Conversation introuvable',
  dmFailed: 'Impossible de créer la conversation',
  dmSelf: 'Vous ne pouvez pas vous écrire à vous-même',
  peerNotFound: 'Membre introuvable',
  tooLarge: 'Message trop long',
  ephemeralNotAllowed: 'Les messages éphémères ne sont pas activés dans ce Ring',
  ephemeralRequired: 'Ce Ring n’accepte que des messages éphémères',
  unverifiable: 'Message non vérifiable',
} as const;

/**
 * Ephemeral messages "self-destruct after reading" (spec 1, issue 25): each reader's countdown
 * starts when that reader first displays the message; the server deletes it once every member who
 * could read it at sending has read it and their delays ran out, and in any case this long after
 * sending (read or not).
 */
export const EPHEMERAL_MAX_LIFETIME_DAYS = 7;
export const EPHEMERAL_MAX_LIFETIME_SEC = EPHEMERAL_MAX_LIFETIME_DAYS * 86_400;
/** What the Ring owner is told where the ephemeral setting is. */
export const EPHEMERAL_MAX_NOTICE = `Un message éphémère non lu est supprimé au plus tard ${EPHEMERAL_MAX_LIFETIME_DAYS} jours après son envoi.`;
/** Read receipts one `message_read` event may carry. */
export const MAX_READ_RECEIPTS = 100;

/** Envelope text limit: 64 KiB of ciphertext in base64 plus the header. */
export const MAX_ENVELOPE_LENGTH = 90_000;
/** Messages per history page (spec: limit ≤ 100). */
export const MESSAGE_PAGE = { default: 50, max: 100 } as const;

export const MESSAGE_TYPES = ['text', 'mention', 'dm', 'ephemeral'] as const;

const conversationId = zBoundedString(80).min(1, CHAT_MESSAGES.conversationNotFound);

/** A stored message as the API and the socket deliver it. */
export const ZMessage = z.object({
  id: z.string(),
  /** Position in its conversation: 1, 2, 3… never reused. */
  seq: z.number().int().positive(),
  conversationId: z.string(),
  clientMessageId: z.string(),
  epoch: z.number().int(),
  content: z.string(),
  messageType: z.enum(MESSAGE_TYPES),
  sender: z.object({ id: z.string(), username: z.string() }),
  timestamp: z.string(),
  isOwn: z.boolean(),
  encrypted: z.literal(true),
  clientEncrypted: z.literal(true),
  isEphemeral: z.boolean(),
  /** When the server will delete it at the latest (ephemeral messages; moves earlier as members read). */
  expiresAt: z.string().nullable(),
  /**
   * Ephemeral messages, the server's record (a claim): for the caller's own message, when another
   * member first displayed it; for another's, when the caller first did (on any device). Null: not yet.
   */
  readAt: z.string().nullable(),
});
export type TMessage = z.infer<typeof ZMessage>;

/**
 * POST /api/messages/send.php (spec 2 §3 Send payload). Sending the same client message id twice
 * stores one message and answers it again (retries are safe). A 409 with `code` `epoch_stale` or
 * `rotation_required` (and `currentEpoch`) asks the client to rotate the Ring key (or load the new
 * one) and re-send. An ephemeral message's delay is signed in its envelope (`ephemeralSec`) and
 * must be the Ring's setting at send time: otherwise 409 `ephemeral_changed` with the setting
 * (`ephemeralSec`, null when off) and the client encrypts again; `isEphemeral: true` without a
 * signed delay is refused (`ephemeralNotAllowed`).
 */
export const ZSendMessageRequest = z.object({
  content: zBoundedString(MAX_ENVELOPE_LENGTH, CHAT_MESSAGES.tooLarge).min(1),
  messageType: z.enum(['text']).default('text'),
  clientEncrypted: z.literal(true, {
    message: 'Les messages d’un Ring doivent être chiffrés de bout en bout.',
  }),
  conversation_id: conversationId.default(ROOM_CONVERSATION_ID),
  isEphemeral: z.boolean().default(false),
});
export type TSendMessageRequest = z.input<typeof ZSendMessageRequest>;
/**
 * `rotationSoon` (issue 30, not in spec 2): the message brought its epoch near the count or age
 * that makes a new one due; its sender creates the next epoch now, in the background, so that no
 * send waits for it. Absent otherwise. A hint only: the browser rotates as it would when due.
 */
const sentMessageShape = { message: ZMessage, rotationSoon: z.literal(true).optional() };
/** What a send answers besides `success` (send.php) or `ok` (the `send_message` ack). */
export type TSentMessage = z.infer<z.ZodObject<typeof sentMessageShape>>;
export const ZSendMessageResponse = successOf(sentMessageShape);
export type TSendMessageResponse = z.infer<typeof ZSendMessageResponse>;
/** The ack's success branch (messages/send-message-event.ts): the same shape as send.php's answer. */
export const ZSendMessageAckOk = z.object({ ok: z.literal(true), ...sentMessageShape });

/**
 * GET /api/messages/get.php — `since`: messages after this sequence number (oldest first, for
 * catch-up); `before`: the page before this sequence number (history scrolling); neither: the
 * latest page. Always in ascending order.
 */
export const ZGetMessagesQuery = z.object({
  conversation_id: conversationId.default(ROOM_CONVERSATION_ID),
  since: z.coerce.number().int().nonnegative().optional(),
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(MESSAGE_PAGE.max).default(MESSAGE_PAGE.default),
});
export const ZGetMessagesResponse = successOf({
  messages: z.array(ZMessage),
  /** More messages exist in the direction asked. */
  hasMore: z.boolean(),
  /** Highest sequence number of the conversation. */
  lastSeq: z.number().int().nonnegative(),
});
export type TGetMessagesResponse = z.infer<typeof ZGetMessagesResponse>;

/**
 * Conversations a `join_ring` may ask to catch up on in its answer (the room and the private
 * conversations a page shows); a page holding more catches up on the others with get.php.
 */
export const MAX_JOIN_CATCH_UP = 20;
/** Messages per conversation in `join_ring`'s answer; past it (`hasMore`), get.php goes on. */
export const JOIN_CATCH_UP_PAGE = MESSAGE_PAGE.default;

/**
 * One conversation a reconnecting page holds, with the highest sequence number it has: join_ring's
 * answer carries what came after (as get.php?since= would), so that a reconnection needs no HTTP
 * request to catch up.
 */
export const ZJoinCatchUp = z.object({
  conversationId,
  since: z.number().int().nonnegative(),
});
export type TJoinCatchUp = z.infer<typeof ZJoinCatchUp>;

/**
 * What a conversation asked at join_ring missed: get.php's messages and `hasMore` for `since`, at
 * most {@link JOIN_CATCH_UP_PAGE} messages. A conversation asked but absent from the answer (not
 * the caller's, or not read) is caught up with get.php.
 */
export interface TJoinMissed {
  conversationId: string;
  messages: TMessage[];
  hasMore: boolean;
}

/** POST /api/conversations/create-dm.php — the same conversation for the same two members. */
export const ZCreateDmRequest = z.object({
  peer_user_id: zBoundedString(64).min(1, CHAT_MESSAGES.peerNotFound),
});
export const ZCreateDmResponse = successOf({
  conversation_id: z.string(),
  peer: z.object({ id: z.string(), username: z.string() }),
});

/** GET /api/conversations/list.php — the caller's conversations with unread counts. */
export const ZConversationSummary = z.object({
  id: z.string(),
  kind: z.enum(['room', 'dm']),
  peer: z.object({ id: z.string(), username: z.string() }).nullable(),
  lastSeq: z.number().int().nonnegative(),
  lastReadSeq: z.number().int().nonnegative(),
  unread: z.number().int().nonnegative(),
  /**
   * When the latest message the caller may read was stored (UTC ISO, the server's clock), null
   * when there is none: the list's « last activity » (issue 29), a time the server already held.
   */
  lastActivityAt: z.string().nullable(),
});
export type TConversationSummary = z.infer<typeof ZConversationSummary>;
export const ZConversationsResponse = successOf({ conversations: z.array(ZConversationSummary) });

/**
 * POST /api/conversations/read.php — the caller has read up to `seq` (never moves back; capped at
 * the conversation's last sequence number).
 */
export const ZMarkReadRequest = z.object({
  conversation_id: conversationId,
  seq: z.number().int().nonnegative(),
});
export const ZMarkReadResponse = successOf({
  conversation_id: z.string(),
  lastReadSeq: z.number().int().nonnegative(),
  unread: z.number().int().nonnegative(),
});
