import type { TMessage, TNewMessageEvent } from '@securering/contract';
import { noticeType } from './messages.policy';
import type { MessageView } from './messages.repository';

/** Shown for a message whose sender's membership no longer exists. */
const UNKNOWN_SENDER = 'Membre supprimé';

/**
 * A stored message as get.php and send.php answer it; `content` is the encrypted envelope.
 * `reads`: the caller's recorded first displays of others' ephemeral messages (readsOfMessages).
 */
export function toMessage(
  row: MessageView,
  conversation: { id: string; kind: 'room' | 'dm' },
  callerId: string,
  reads: ReadonlyMap<string, string> = new Map(),
): TMessage {
  const isOwn = row.sender_member_id !== null && row.sender_member_id === callerId;
  return {
    id: row.id,
    seq: row.seq,
    conversationId: conversation.id,
    clientMessageId: row.client_message_id,
    epoch: row.epoch,
    content: row.content,
    messageType: noticeType(conversation.kind, row.is_ephemeral === 1),
    sender: { id: row.sender_member_id ?? '', username: row.sender_username ?? UNKNOWN_SENDER },
    timestamp: row.created_at,
    isOwn,
    encrypted: true,
    clientEncrypted: true,
    isEphemeral: row.is_ephemeral === 1,
    expiresAt: row.expires_at,
    readAt: row.is_ephemeral !== 1 ? null : isOwn ? row.first_read_at : (reads.get(row.id) ?? null),
  };
}

/** The `new_message` event of a stored message (emitted after the commit). */
export function toNewMessageEvent(message: TMessage, ringId: string): TNewMessageEvent {
  return {
    messageId: message.id,
    fromUsername: message.sender.username,
    fromUserId: message.sender.id,
    content: message.content,
    messageType: message.messageType,
    conversationId: message.conversationId,
    ringId,
    timestamp: message.timestamp,
    seq: message.seq,
    clientMessageId: message.clientMessageId,
    epoch: message.epoch,
    isEphemeral: message.isEphemeral,
    expiresAt: message.expiresAt,
  };
}
