import {
  CHAT_MESSAGES,
  E2EE_MESSAGES,
  EPHEMERAL_MAX_LIFETIME_SEC,
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
 * Whether a message is ephemeral, from the delay its sender signed in the envelope
 * (`header.ephemeralSec`), which must be the Ring's setting at send time: otherwise 409
 * `ephemeral_changed` with the setting (null when off), and the client encrypts again — the server
 * cannot make a message ephemeral or permanent behind its sender's back. `isEphemeral: true`
 * without a signed delay in a Ring that has them off is refused outright.
 */
export function ephemeralFor(
  ring: { ephemeral_messages: 0 | 1; auto_destroy_delay: number },
  requested: boolean,
  signedSec: number | undefined,
):
  | { ok: true; is_ephemeral: 0 | 1; ephemeral_sec: number | null }
  | { ok: false; refusal: SendRefusal & { ephemeralSec?: number | null } } {
  const setting = ring.ephemeral_messages === 1 ? ring.auto_destroy_delay : null;
  if (setting === null && signedSec === undefined) {
    if (requested) return { ok: false, refusal: { status: 400, error: CHAT_MESSAGES.ephemeralNotAllowed } };
    return { ok: true, is_ephemeral: 0, ephemeral_sec: null };
  }
  if (signedSec !== setting)
    return {
      ok: false,
      refusal: {
        status: 409,
        error: setting === null ? CHAT_MESSAGES.ephemeralNotAllowed : CHAT_MESSAGES.ephemeralRequired,
        code: 'ephemeral_changed',
        ephemeralSec: setting,
      },
    };
  return { ok: true, is_ephemeral: 1, ephemeral_sec: setting };
}

/**
 * When the server deletes an ephemeral message (issue 25): once every member who could read it at
 * sending (`recipients`) has displayed it and its delay has run out from the last of those
 * displays, and in any case EPHEMERAL_MAX_LIFETIME_SEC after sending. With nobody else to read it,
 * the delay counts from sending.
 */
export function ephemeralDeletionTime(
  message: { createdAt: string; delaySec: number },
  recipients: ReadonlyArray<{ readAt: string | null }>,
): string {
  const sent = Date.parse(message.createdAt);
  const cap = sent + EPHEMERAL_MAX_LIFETIME_SEC * 1000;
  if (recipients.some((r) => r.readAt === null)) return new Date(cap).toISOString();
  const lastRead = recipients.reduce((last, r) => Math.max(last, Date.parse(r.readAt!)), sent);
  return new Date(Math.min(cap, lastRead + message.delaySec * 1000)).toISOString();
}

/** The notice type of a message (spec 2 §3): a private message, an ephemeral one, or plain text. */
export function noticeType(kind: 'room' | 'dm', isEphemeral: boolean): 'dm' | 'ephemeral' | 'text' {
  if (kind === 'dm') return 'dm';
  return isEphemeral ? 'ephemeral' : 'text';
}
