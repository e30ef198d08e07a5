import {
  CHAT_MESSAGES,
  E2EE_MESSAGES,
  ROOM_CONVERSATION_ID,
  dmConversationId,
  type TE2eeErrorCode,
} from '@securering/contract';
import { LEVEL_PARAMETERS, type MessageHeader, type SecurityLevel } from '@securering/e2ee';

/**
 * Pure rules of the Ring chat (spec 2 §3, §5, §6; issue 11): what a conversation id names, who may
 * see a conversation, whether an envelope belongs where it is sent, whether its epoch is the one
 * in force, and how long a message lives.
 */

export type ConversationRef = { kind: 'room' } | { kind: 'dm'; members: [string, string] };

/**
 * What a conversation id names: the Ring's room, or a private conversation between two distinct
 * members (`dm:<a>:<b>`, ids sorted); undefined for anything else.
 */
export function parseConversationId(id: string): ConversationRef | undefined {
  if (id === ROOM_CONVERSATION_ID) return { kind: 'room' };
  const match = /^dm:([^:\s]{1,36}):([^:\s]{1,36})$/.exec(id);
  if (!match) return undefined;
  const [, a, b] = match as unknown as [string, string, string];
  if (a === b || dmConversationId(a, b) !== id) return undefined;
  return { kind: 'dm', members: [a, b] };
}

/**
 * Who may read and write a conversation: the room, every active member of the Ring (the caller is
 * one, or it would not be here); a private conversation, only its two participants.
 */
export function mayAccessConversation(
  conversation: { kind: 'room' | 'dm'; participants: readonly string[] },
  memberId: string,
): boolean {
  return conversation.kind === 'room' || conversation.participants.includes(memberId);
}

/** A refusal with its status, French message and, for 409s, the code the client acts on. */
export interface SendRefusal {
  status: 400 | 409;
  error: string;
  code?: TE2eeErrorCode;
  currentEpoch?: number;
}

/**
 * An envelope belongs where it is sent only if its header names this Ring, this conversation and
 * the caller as sender: anything else could replay someone's message elsewhere.
 */
export function checkEnvelopeHeader(
  header: Pick<MessageHeader, 'ringId' | 'conversationId' | 'senderId'>,
  expected: { ringId: string; conversationId: string; senderId: string },
): SendRefusal | undefined {
  if (
    header.ringId !== expected.ringId ||
    header.conversationId !== expected.conversationId ||
    header.senderId !== expected.senderId
  )
    return { status: 400, error: E2EE_MESSAGES.envelopeMismatch };
  return undefined;
}

/**
 * A message is accepted only under the Ring's current epoch, and not while a new epoch is due
 * (none yet, a membership change, age or message count): the client then creates it and re-sends.
 */
export function checkSendEpoch(
  headerEpoch: number,
  ring: { current_epoch: number },
  rotationDue: boolean,
): SendRefusal | undefined {
  if (ring.current_epoch === 0 || rotationDue)
    return {
      status: 409,
      error: E2EE_MESSAGES.rotationRequired,
      code: 'rotation_required',
      currentEpoch: ring.current_epoch,
    };
  if (headerEpoch !== ring.current_epoch)
    return {
      status: 409,
      error: E2EE_MESSAGES.epochStale,
      code: 'epoch_stale',
      currentEpoch: ring.current_epoch,
    };
  return undefined;
}

/**
 * How many messages an epoch of a Ring at `level` takes: the count at which a new epoch is due
 * (shouldRotateEpoch). The store counts against it, so concurrent sends never carry an epoch past it.
 */
export function messagesPerEpoch(level: SecurityLevel): number {
  return LEVEL_PARAMETERS[level].rotateAfterMessages;
}

/**
 * Whether a message is ephemeral and when it expires is the Ring's setting at send time
 * (send time + auto-destroy delay). A client asking for an ephemeral message in a Ring that has
 * them off is refused rather than having its message kept for good.
 */
export function ephemeralFor(
  ring: { ephemeral_messages: 0 | 1; auto_destroy_delay: number },
  requested: boolean,
  now: Date,
): { ok: true; is_ephemeral: 0 | 1; expires_at: string | null } | { ok: false; status: 400; error: string } {
  if (ring.ephemeral_messages !== 1) {
    if (requested) return { ok: false, status: 400, error: CHAT_MESSAGES.ephemeralNotAllowed };
    return { ok: true, is_ephemeral: 0, expires_at: null };
  }
  return {
    ok: true,
    is_ephemeral: 1,
    expires_at: new Date(now.getTime() + ring.auto_destroy_delay * 1000).toISOString(),
  };
}

/** The notice type of a message (spec 2 §3): a private message, an ephemeral one, or plain text. */
export function noticeType(kind: 'room' | 'dm', isEphemeral: boolean): 'dm' | 'ephemeral' | 'text' {
  if (kind === 'dm') return 'dm';
  return isEphemeral ? 'ephemeral' : 'text';
}
