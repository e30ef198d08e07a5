import { z } from 'zod';
import { type PROTECTION_LEVELS } from './constants';

/**
 * Socket.io events on `/socket.io` (spec 2 §7). Payload schemas validate what clients send;
 * the interfaces type both ends of the connection.
 */

export const ZJoinRing = z.object({ ringId: z.string().min(1) });
export type TJoinRing = z.infer<typeof ZJoinRing>;
export type TJoinRingAck = { ok: true; ringId: string } | { ok: false; error: string };

export const ZCallSignal = z.object({
  ringId: z.string(),
  callId: z.string().min(1).max(100),
  toUserId: z.string().min(1),
  audioOnly: z.boolean().optional(),
});
export type TCallSignal = z.infer<typeof ZCallSignal>;

/** What a peer receives for a call event: the sender is stamped by the server. */
export interface TCallEvent {
  ringId: string;
  callId: string;
  fromUserId: string;
  toUserId: string;
  fromUsername: string;
  audioOnly?: boolean;
}

export interface TIncomingCall {
  callId: string;
  callType: 'voice' | 'video';
  fromUsername: string;
  fromUserId: string;
  ringId: string;
  timestamp: string;
}

export const ZRtcSignal = z.object({
  ringId: z.string(),
  callId: z.string().min(1).max(100),
  toUserId: z.string().min(1),
  data: z.unknown(),
});
export type TRtcSignal = z.infer<typeof ZRtcSignal>;
export interface TRtcRelay extends TRtcSignal {
  fromUserId: string;
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

/** Messages removed from a conversation (ephemeral messages at expiry). */
export interface TMessagesDeleted {
  ringId: string;
  conversationId: string;
  messageIds: string[];
}

/**
 * The Ring's key state changed: a new epoch (`rotated`), shares for the receiver (`shared`), a
 * member published or reset its keys (`member_keys`), or a nudge to a key holder: some member
 * lacks keys it holds (`needed`). Clients read GET /api/rings/keys/state.php again.
 */
export interface TKeysChanged {
  ringId: string;
  reason: 'rotated' | 'shared' | 'member_keys' | 'needed' | 'rotation_due';
  epoch?: number;
  memberId?: string;
}

export const ZRequestKeys = z.object({ ringId: z.string().min(1).max(64) });
export type TRequestKeys = z.infer<typeof ZRequestKeys>;

export type TPresenceStatus = 'online' | 'in_call' | 'offline';
export interface TPresenceUpdate {
  ringId: string;
  userId: string;
  status: TPresenceStatus;
  lastSeen: string | null;
}
export interface TPresenceState {
  ringId: string;
  online: string[];
}

export interface TRingSettingsUpdated {
  ringId: string;
  updated: {
    screen_protection_level?: (typeof PROTECTION_LEVELS)[number];
    ephemeral_messages?: boolean;
    [key: string]: unknown;
  };
}

export interface ServerToClientEvents {
  new_message: (e: TNewMessageEvent) => void;
  messages_deleted: (e: TMessagesDeleted) => void;
  keys_changed: (e: TKeysChanged) => void;
  call_invite: (e: TIncomingCall & TCallEvent) => void;
  call_cancel: (e: TCallEvent) => void;
  call_accept: (e: TCallEvent) => void;
  call_reject: (e: TCallEvent) => void;
  call_offer: (e: TRtcRelay) => void;
  call_answer: (e: TRtcRelay) => void;
  ice_candidate: (e: TRtcRelay) => void;
  presence_update: (e: TPresenceUpdate) => void;
  presence_state: (e: TPresenceState) => void;
  ring_settings_updated: (e: TRingSettingsUpdated) => void;
}

export interface ClientToServerEvents {
  join_ring: (payload: TJoinRing, ack: (result: TJoinRingAck) => void) => void;
  /** A member waiting for keys asks the server to nudge the key holders who are online. */
  request_keys: (payload: TRequestKeys, ack?: (result: { ok: boolean; error?: string }) => void) => void;
  call_invite: (payload: TCallSignal) => void;
  call_accept: (payload: TCallSignal) => void;
  call_reject: (payload: TCallSignal) => void;
  call_cancel: (payload: TCallSignal) => void;
  call_offer: (payload: TRtcSignal) => void;
  call_answer: (payload: TRtcSignal) => void;
  ice_candidate: (payload: TRtcSignal) => void;
}
