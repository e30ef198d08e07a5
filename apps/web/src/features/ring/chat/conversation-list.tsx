import { ROOM_CONVERSATION_ID, type TConversationSummary } from '@securering/contract';
import { MessagesSquare } from 'lucide-react';
import { useMemo } from 'react';
import { cn } from '@/lib/utils';
import { useChat } from './chat-provider';
import { activityLabel, byLastActivity } from './reading-marks';

/**
 * « Conversations » (issue 29): the room and the member's private conversations, latest activity
 * first, each with its unread count (the server's, from sequence numbers and read positions) and
 * the time of its last message. A private conversation with a member opens from here or from the
 * member's « ⋯ » menu, online or not: stored messages reach the peer when it comes back.
 */
export function ConversationList({
  onOpen,
  activeId,
  className,
}: {
  onOpen: (conversationId: string) => void;
  /** The conversation shown beside the list, if any. */
  activeId?: string | undefined;
  className?: string;
}) {
  const chat = useChat();
  const { conversations, info } = chat;
  // Before the list answers, the room alone (always there).
  const rows = useMemo(
    () =>
      byLastActivity<TConversationSummary>(
        conversations.length > 0
          ? conversations
          : [
              {
                id: ROOM_CONVERSATION_ID,
                kind: 'room',
                peer: null,
                lastSeq: 0,
                lastReadSeq: 0,
                unread: 0,
                lastActivityAt: null,
              },
            ],
      ),
    [conversations],
  );
  const now = new Date();
  return (
    <ul
      aria-label="Conversations"
      data-testid="conversation-list"
      className={cn('divide-y divide-slate-100', className)}
    >
      {rows.map((conversation) => {
        const room = conversation.kind === 'room';
        const peer = conversation.peer;
        const peerUser = peer ? info.users.find((u) => u.id === peer.id) : undefined;
        const name = room ? 'Salon du ring' : (peerUser?.username ?? peer?.username ?? 'Un membre');
        const when = activityLabel(conversation.lastActivityAt, now);
        const unread = conversation.unread;
        return (
          <li key={conversation.id} data-conversation-row={conversation.id}>
            <button
              type="button"
              aria-current={activeId === conversation.id ? 'true' : undefined}
              className="flex w-full items-center gap-3 rounded-md px-2 py-2 text-left hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-primary aria-[current=true]:bg-primary/5 pointer-coarse:min-h-14"
              onClick={() => onOpen(conversation.id)}
            >
              <span
                className="flex size-9 shrink-0 items-center justify-center rounded-full bg-primary/10 font-semibold uppercase text-primary"
                aria-hidden
              >
                {room ? <MessagesSquare className="size-4" /> : name.charAt(0)}
              </span>
              <span className="min-w-0 flex-1">
                <span className="flex items-baseline gap-2">
                  <span
                    className={cn(
                      'min-w-0 flex-1 truncate text-sm',
                      unread > 0 ? 'font-semibold' : 'font-medium',
                    )}
                  >
                    {name}
                  </span>
                  {when ? (
                    <time
                      dateTime={conversation.lastActivityAt ?? undefined}
                      className={cn('shrink-0 text-xs', unread > 0 ? 'text-primary' : 'text-slate-500')}
                      data-testid="conversation-activity"
                    >
                      {when}
                    </time>
                  ) : null}
                </span>
                <span className="flex items-center gap-2">
                  <span className="min-w-0 flex-1 truncate text-xs text-slate-500">
                    {room
                      ? 'Tous les membres du Ring'
                      : conversation.lastActivityAt
                        ? 'Conversation privée'
                        : 'Aucun message pour le moment'}
                  </span>
                  {unread > 0 ? (
                    <span
                      className="shrink-0 rounded-full bg-primary px-1.5 text-xs font-medium text-primary-foreground"
                      data-testid="conversation-unread"
                    >
                      {unread}
                      <span className="sr-only"> non lu{unread > 1 ? 's' : ''}</span>
                    </span>
                  ) : null}
                </span>
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
