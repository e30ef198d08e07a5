import { CHAT_MESSAGES, DELETE_MESSAGE_ERRORS, type ZDeleteMessageRequest } from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { forbidden, notFound, tooManyRequests } from '../../lib/app-error';
import { MINUTE_MS } from '../../lib/clock';
import type { RingMembership } from '../rings/ring.guard';
import { MessageDeletionRepository } from './message-deletion.repository';
import { mayAccessConversation, parseConversationId } from './messages.policy';
import { MessagesRepository } from './messages.repository';
import { SENDS_PER_MINUTE } from './messages.service';

type DeleteInput = z.output<typeof ZDeleteMessageRequest>;

/**
 * A member deletes the ciphertext of one of their own messages (issue 29). The server checks the
 * caller may use the conversation (404 otherwise, as for every chat call) and is the stored sender
 * of the message (403 otherwise); it reads nothing of the message. What readers show comes from the
 * sender's signed deletion, sent as an ordinary encrypted message before this call.
 */
export class MessageDeletionService {
  private readonly messages: MessagesRepository;
  private readonly deletions: MessageDeletionRepository;

  constructor(private readonly ctx: AppContext) {
    this.messages = new MessagesRepository(ctx.db, ctx.database);
    this.deletions = new MessageDeletionRepository(ctx.db);
  }

  async deleteOwn(caller: RingMembership, input: DeleteInput): Promise<{ messageId: string }> {
    const { member, ring } = caller;
    const budget = await this.ctx.rateLimiter.hit(`message-delete:${member.id}`, SENDS_PER_MINUTE, MINUTE_MS);
    if (!budget.allowed) throw tooManyRequests(Math.ceil(budget.resetMs / 1000));

    const conversationMissing = () => notFound(CHAT_MESSAGES.conversationNotFound);
    const ref = parseConversationId(input.conversation_id);
    if (!ref) throw conversationMissing();
    if (ref.kind === 'dm' && !ref.members.includes(member.id)) throw conversationMissing();
    const row = await this.messages.findConversation(ring.id, input.conversation_id);
    if (!row) throw notFound(DELETE_MESSAGE_ERRORS.notFound);
    if (ref.kind === 'dm') {
      const participants = await this.messages.participants(row.id);
      if (row.kind !== 'dm' || !mayAccessConversation({ kind: 'dm', participants }, member.id))
        throw conversationMissing();
    }

    const found = await this.deletions.findByClientMessageId(row.id, input.client_message_id);
    const own = found.find((message) => message.sender_member_id === member.id);
    if (!own)
      throw found.length > 0
        ? forbidden(DELETE_MESSAGE_ERRORS.notOwn)
        : notFound(DELETE_MESSAGE_ERRORS.notFound);
    if (!(await this.deletions.deleteOwn(own.id, member.id))) throw notFound(DELETE_MESSAGE_ERRORS.notFound);
    return { messageId: own.id };
  }
}
