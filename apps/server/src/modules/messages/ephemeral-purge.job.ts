import type { AppContext } from '../../app-context';
import { MessagesRepository } from './messages.repository';

/** How often expired ephemeral messages are deleted (they are never served once expired anyway). */
export const EPHEMERAL_PURGE_INTERVAL_MS = 2_000;
const BATCH = 500;

/**
 * Deletes ephemeral messages whose expiry has passed and tells whoever could see them
 * (`messages_deleted`: the Ring's room for room messages, the two participants for a private
 * conversation). Safe on several instances: each deleted row is returned to one of them only.
 * Returns how many messages went.
 */
export async function purgeExpiredMessages(ctx: AppContext): Promise<number> {
  const repo = new MessagesRepository(ctx.db, ctx.database);
  const nowIso = ctx.clock.now().toISOString();
  let total = 0;
  for (;;) {
    const deleted = await repo.deleteExpired(nowIso, BATCH);
    total += deleted.length;
    if (deleted.length > 0) {
      const byConversation = new Map<string, string[]>();
      for (const row of deleted)
        byConversation.set(row.conversation_id, [...(byConversation.get(row.conversation_id) ?? []), row.id]);
      const conversations = await repo.conversationsByIds([...byConversation.keys()]);
      const participants = await repo.participantsOf(
        conversations.filter((c) => c.kind === 'dm').map((c) => c.id),
      );
      for (const conversation of conversations) {
        const event = {
          ringId: conversation.ring_id,
          conversationId: conversation.conversation_key,
          messageIds: byConversation.get(conversation.id) ?? [],
        };
        if (conversation.kind === 'room')
          ctx.realtime.emitToRingReaders(conversation.ring_id, 'messages_deleted', event);
        else
          for (const member of participants.get(conversation.id) ?? [])
            ctx.realtime.emitToMember(member, 'messages_deleted', event);
      }
    }
    if (deleted.length < BATCH) return total;
  }
}
