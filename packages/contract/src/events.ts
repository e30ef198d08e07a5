import { z } from 'zod';
import { type TCallEndReason, type TCallType } from './calls/calls';
import { type PROTECTION_LEVELS } from './constants';
import {
  MAX_JOIN_CATCH_UP,
  MAX_READ_RECEIPTS,
  ZJoinCatchUp,
  type TConversationSummary,
  type TJoinMissed,
} from './messages/messages';
import { type TSendMessageAck, type TSendMessageEvent } from './messages/send-message-event';
import {
  type TReadingSignal,
  type TReadingSignalAck,
  type TReadingSignalEvent,
} from './messages/reading-signal';

/**
 * Socket.io events on `/socket.io` (spec 2 §7). Payload schemas validate what clients send;
 * the interfaces type both ends of the connection.
 */

/**
 * join_ring: the socket enters its Ring's room. `catchUp` (optional, at most
 * {@link MAX_JOIN_CATCH_UP} conversations, each once): the conversations a reconnecting page holds
 * with the highest sequence number of each; the answer's `missed` carries what came after (the
 * socket is in the room before they are read, so nothing falls between them and the pushes).
 * `conversations: true`: the answer also carries the caller's conversations with their unread
 * counts (`conversations`, as list.php answers them), which a room page reads again at each join.
 * `keyRevision: true`: the answer also carries the Ring's key revision (`keyRevision`, read after the
 * socket entered the room), which moves with every change the members' key states depend on; a page
 * whose last key-state read (keys/state.php `keyRevision`) has the same one need not read it again.
 */
export const ZJoinRing = z.object({
  ringId: z.string().min(1),
  conversations: z.boolean().optional(),
  keyRevision: z.boolean().optional(),
  catchUp: z
    .array(ZJoinCatchUp)
    .max(MAX_JOIN_CATCH_UP)
    .refine((items) => new Set(items.map((item) => item.conversationId)).size === items.length)
    .optional(),
});
export type TJoinRing = z.input<typeof ZJoinRing>;
export type TJoinRingAck =
  | {
      ok: true;
      ringId: string;
      missed?: TJoinMissed[];
      conversations?: TConversationSummary[];
      keyRevision?: number;
    }
  | { ok: false; error: string };

const callRingId = z.string().min(1).max(64);
const callMemberId = z.string().min(1).max(64);

/** Largest SDP or ICE payload relayed, in JSON characters (an SDP with a signature is a few KB). */
export const MAX_RTC_SIGNAL_CHARS = 64 * 1024;

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * call_invite from the caller (spec 2 §4: emitted when a call starts). `audioOnly` defaults to
 * true; false asks for a video call. `callId` may be chosen by the client (a UUID, so the call
 * popup can open before the answer); otherwise the server makes one. The ack carries the callId.
 */
export const ZCallInvite = z.object({
  ringId: callRingId,
  toUserId: callMemberId,
  callId: z.uuid().optional(),
  audioOnly: z.boolean().optional(),
});
export type TCallInvite = z.infer<typeof ZCallInvite>;
export type TCallInviteAck = { ok: true; callId: string; callType: TCallType } | { ok: false; error: string };

/**
 * call_accept, call_reject, call_cancel, call_hangup and call_connected: one member of a call acts
 * on it. `toUserId`, when sent, must be the other member of the call.
 */
export const ZCallAction = z.object({
  ringId: callRingId,
  callId: z.string().min(1).max(100),
  toUserId: callMemberId.optional(),
});
export type TCallAction = z.infer<typeof ZCallAction>;
export type TCallAck = { ok: true } | { ok: false; error: string };

/**
 * What a member of the call receives for a call event: the sender (`fromUserId`, `fromUsername`)
 * is stamped by the server, never taken from the client. Ending events carry the reason.
 */
export interface TCallEvent {
  ringId: string;
  callId: string;
  fromUserId: string;
  toUserId: string;
  fromUsername: string;
  audioOnly: boolean;
  callType: TCallType;
  reason?: TCallEndReason;
}

export interface TIncomingCall {
  callId: string;
  callType: TCallType;
  fromUsername: string;
  fromUserId: string;
  ringId: string;
  timestamp: string;
}

/** call_offer, call_answer, ice_candidate: `data` (SDP, candidate, signatures) is relayed as is. */
export const ZRtcSignal = z.object({
  ringId: callRingId,
  callId: z.string().min(1).max(100),
  toUserId: callMemberId.optional(),
  data: z
    .unknown()
    .refine((value) => value !== undefined && value !== null && jsonLength(value) <= MAX_RTC_SIGNAL_CHARS),
});
export type TRtcSignal = z.infer<typeof ZRtcSignal>;
export interface TRtcRelay {
  ringId: string;
  callId: string;
  fromUserId: string;
  toUserId: string;
  data: unknown;
}

/**
 * A message was stored (spec 2 §3 incoming message notice, plus what delivery needs): emitted after
 * the commit to the conversation's members only. `content` is the encrypted envelope.
 */
export interface TNewMessageEvent {
  messageId: string;
  fromUsername: string;
  fromUserId: string;
  content: string;
  messageType: 'text' | 'mention' | 'dm' | 'ephemeral';
  conversationId: string;
  ringId: string;
  timestamp: string;
  seq: number;
  clientMessageId: string;
  epoch: number;
  isEphemeral: boolean;
  expiresAt: string | null;
}

/**
 * message_read: this member's browser displayed these ephemeral messages of a conversation it may
 * read for the first time (its countdown started). Idempotent: the server keeps the first time per
 * member and message, and answers it (`reads`; another device may have been first).
 */
export const ZMessageRead = z.object({
  ringId: z.string().min(1).max(64),
  conversationId: z.string().min(1).max(80),
  messageIds: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(MAX_READ_RECEIPTS)
    .refine((ids) => new Set(ids).size === ids.length),
});
export type TMessageRead = z.infer<typeof ZMessageRead>;
export type TMessageReadAck =
  { ok: true; reads: Array<{ messageId: string; readAt: string }> } | { ok: false; error: string };

/** To the sender of an ephemeral message: another member displayed it first (its copy counts down). */
export interface TMessageFirstRead {
  ringId: string;
  conversationId: string;
  messageId: string;
  readAt: string;
  /** The server's new deletion time of the message. */
  expiresAt: string | null;
}

/** Messages removed from a conversation (ephemeral messages at expiry). */
export interface TMessagesDeleted {
  ringId: string;
  conversationId: string;
  messageIds: string[];
}

/**
 * The Ring's key state changed: a new epoch (`rotated`), shares for the receiver (`shared`), a
 * member published or reset its keys (`member_keys`), a nudge to a key holder: some member lacks
 * keys it holds (`needed`), or a link was added to the signed membership log (`membership`).
 * Clients read GET /api/rings/keys/state.php (and the log) again.
 */
export interface TKeysChanged {
  ringId: string;
  reason: 'rotated' | 'shared' | 'member_keys' | 'needed' | 'rotation_due' | 'membership';
  epoch?: number;
  memberId?: string;
}

export const ZRequestKeys = z.object({ ringId: z.string().min(1).max(64) });
export type TRequestKeys = z.infer<typeof ZRequestKeys>;

/** The stream token of the page's next connection, taken while connected (RING_CONNECTION). */
export const ZRenewStreamToken = z.object({ ringId: z.string().min(1).max(64) });
export type TRenewStreamToken = z.infer<typeof ZRenewStreamToken>;
/** As mint-stream-token.php answers: single use, bound to the Ring session, `expires_in` seconds. */
export type TRenewStreamTokenAck =
  { ok: true; stream_token: string; expires_in: number } | { ok: false; error: string };

export type TPresenceStatus = 'online' | 'in_call' | 'offline';
export interface TPresenceUpdate {
  ringId: string;
  userId: string;
  status: TPresenceStatus;
  lastSeen: string | null;
}
/**
 * Several presence changes of one Ring at once: the server gathers the joins and departures of a
 * Ring for a short tick and sends them together (one frame per socket instead of one per change);
 * a tick with a single change is sent as `presence_update`. Apply in order, as `presence_update`s.
 */
export interface TPresenceUpdates {
  ringId: string;
  updates: TPresenceUpdate[];
}
export interface TPresenceState {
  ringId: string;
  online: string[];
  /** Online members in a connected call (shown `in_call`). */
  inCall: string[];
}

export interface TRingSettingsUpdated {
  ringId: string;
  updated: {
    screen_protection_level?: (typeof PROTECTION_LEVELS)[number];
    ephemeral_messages?: boolean;
    [key: string]: unknown;
  };
}

/**
 * The Ring's file space changed (upload, rename, delete, folder created, renamed or deleted):
 * members showing `folder` (a folder path, "" for the root) read list.php again.
 */
export interface TFilesChanged {
  ringId: string;
  folder: string;
}

/**
 * realtime_mode: whether this socket's instance pushes every event (`live`) or, while its link to
 * the other instances (Redis) is down, only its own (`polling`): the page then reads what it missed
 * every REALTIME_POLL_MS (join_ring with its catch-up) and shows presence as unknown. Sent when the
 * mode changes, and on connection while it is `polling` (issue 26).
 */
export interface TRealtimeMode {
  mode: 'live' | 'polling';
}
/** How often a page polls (join_ring's catch-up) while its instance's realtime mode is `polling`. */
export const REALTIME_POLL_MS = 3000;

/**
 * catch_up: check your sequence numbers now (join_ring again with its `catchUp`), at a random moment
 * within `withinMs` so that every page does not ask at once. Sent by an instance whose link to the
 * other instances (Redis) has just come back, to the pages of every instance: pushes published
 * while a subscriber was not yet listening again never arrive, so a quiet Ring catches up without
 * waiting for a later message (issue 26). Pages also check by themselves every
 * {@link IDLE_CATCH_UP_MS} while nothing arrives.
 */
export interface TCatchUp {
  withinMs: number;
}
/** A page that has received nothing for this long checks its sequence numbers (join_ring catch-up). */
export const IDLE_CATCH_UP_MS = 60_000;

/**
 * access_suspended, to the member itself (its `member:<id>` room) just before its sockets close:
 * the owner deactivated it, so its page says why (« Votre accès à ce Ring a été suspendu par son
 * administrateur ») instead of falling back to an empty login form (issue 28).
 */
export interface TAccessSuspended {
  ringId: string;
}
/**
 * member_suspended, to the Ring: a member was deactivated (or reactivated, `back: true`) in the
 * customer space. A server claim, shown in the room's timeline as a notice only: who reads the
 * Ring's keys is still what the signed membership log says.
 */
export interface TMemberSuspended {
  ringId: string;
  userId: string;
  username: string;
  at: string;
  back?: boolean;
}

export interface ServerToClientEvents {
  new_message: (e: TNewMessageEvent) => void;
  catch_up: (e: TCatchUp) => void;
  realtime_mode: (e: TRealtimeMode) => void;
  messages_deleted: (e: TMessagesDeleted) => void;
  message_first_read: (e: TMessageFirstRead) => void;
  /** Typing indicator or read receipt, encrypted (messages/reading-signal.ts). */
  reading_signal: (e: TReadingSignalEvent) => void;
  keys_changed: (e: TKeysChanged) => void;
  call_invite: (e: TIncomingCall & TCallEvent) => void;
  call_cancel: (e: TCallEvent) => void;
  call_accept: (e: TCallEvent) => void;
  call_reject: (e: TCallEvent) => void;
  call_hangup: (e: TCallEvent) => void;
  call_offer: (e: TRtcRelay) => void;
  call_answer: (e: TRtcRelay) => void;
  ice_candidate: (e: TRtcRelay) => void;
  presence_update: (e: TPresenceUpdate) => void;
  presence_updates: (e: TPresenceUpdates) => void;
  presence_state: (e: TPresenceState) => void;
  ring_settings_updated: (e: TRingSettingsUpdated) => void;
  files_changed: (e: TFilesChanged) => void;
  access_suspended: (e: TAccessSuspended) => void;
  member_suspended: (e: TMemberSuspended) => void;
}

export interface ClientToServerEvents {
  join_ring: (payload: TJoinRing, ack: (result: TJoinRingAck) => void) => void;
  /** A member waiting for keys asks the server to nudge the key holders who are online. */
  request_keys: (
    payload: TRequestKeys,
    /** `nudged`: how many online key holders were asked (0: nothing lacking, or no holder online). */
    ack?: (result: { ok: boolean; error?: string; nudged?: number }) => void,
  ) => void;
  /** Ephemeral messages this member displayed for the first time (their countdowns started). */
  message_read: (payload: TMessageRead, ack?: (result: TMessageReadAck) => void) => void;
  /** send.php over the joined socket (messages/send-message-event.ts). */
  send_message: (payload: TSendMessageEvent, ack?: (result: TSendMessageAck) => void) => void;
  /** An encrypted typing indicator or read receipt to relay (messages/reading-signal.ts). */
  reading_signal: (payload: TReadingSignal, ack?: (result: TReadingSignalAck) => void) => void;
  /** A spare stream token for the next (re)connection, so it needs no HTTP call first. */
  renew_stream_token: (payload: TRenewStreamToken, ack: (result: TRenewStreamTokenAck) => void) => void;
  call_invite: (payload: TCallInvite, ack?: (result: TCallInviteAck) => void) => void;
  call_accept: (payload: TCallAction, ack?: (result: TCallAck) => void) => void;
  call_reject: (payload: TCallAction, ack?: (result: TCallAck) => void) => void;
  call_cancel: (payload: TCallAction, ack?: (result: TCallAck) => void) => void;
  /** Ends the call whatever its state (hang-up; reject or cancel while it rings). */
  call_hangup: (payload: TCallAction, ack?: (result: TCallAck) => void) => void;
  /** The peer connection is connected: both members show `in_call` to the Ring. */
  call_connected: (payload: TCallAction, ack?: (result: TCallAck) => void) => void;
  call_offer: (payload: TRtcSignal, ack?: (result: TCallAck) => void) => void;
  call_answer: (payload: TRtcSignal, ack?: (result: TCallAck) => void) => void;
  ice_candidate: (payload: TRtcSignal, ack?: (result: TCallAck) => void) => void;
}
