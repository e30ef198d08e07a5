import {
  CHAT_MESSAGES,
  ROOM_CONVERSATION_ID,
  type TConversationSummary,
  type TJoinCatchUp,
  type TNewMessageEvent,
  type TRingInfo,
} from '@securering/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { useToast } from '@/components/ui/toast';
import { useRingRefreshMs } from '../api/ring-info';
import { useRingEvent, useRingSocket } from '../realtime/ring-socket';
import { useRingKeys } from '../e2ee/use-ring-keys';
import { parseCallNotice } from '../calls/call-notice';
import { isSilentAction, mentions as mentionsMember, plainTextOf } from './message-actions';
import { createDm, listConversations, markRead as postMarkRead, socketFirstChatApi } from './chat-api';
import type { ChatEntry } from './chat-policy';
import { ConversationFeed, type FeedSnapshot } from './conversation-feed';
import { isPopupOpen, onConversationRead, announceConversationRead, openDmPopup } from './dm-popups';
import { ReadingStateProvider } from './reading-state';
import { shownUnread, UnreadDiscounts } from './unread-discounts';
import { useChatNotifications, type ChatNotifications } from './use-notifications';
import { useRealtimeFallback, type RealtimeMode } from './use-realtime-fallback';

const CONVERSATIONS_KEY = ['ring', 'conversations'] as const;

/** The chat of a room page (all its conversations) or of a popup (one conversation). */
export interface ChatContextValue {
  mode: 'room' | 'popup';
  info: TRingInfo;
  /** The feed of a conversation (created on first use, kept while the page lives). */
  feed(conversationId: string): ConversationFeed;
  /** Registers a conversation as shown on screen; returns the function that withdraws it. */
  showing(conversationId: string): () => void;
  realtime: RealtimeMode;
  conversations: readonly TConversationSummary[];
  unreadOf(conversationId: string): number;
  markRead(conversationId: string, seq: number): void;
  /** "Message privé à {username}": create-dm.php, then the DM popup (520×760). */
  openDm(peer: { id: string; username: string }): void;
  notifications: ChatNotifications;
  /** The display name of a conversation ("Salon • …", "Conversation privée avec …"). */
  titleOf(conversationId: string): string;
  /**
   * The member's read position in a conversation as the server last said it (0: nothing read);
   * undefined while the list loads, null when it could not be read.
   */
  readMarkOf(conversationId: string): number | null | undefined;
  /** Opens a conversation (from the list or a notice): in the room page, or its DM popup. */
  openConversation(conversationId: string): void;
  /** The room page shows conversations itself (a phone): it registers here; returns the unregister. */
  registerOpener(opener: ConversationOpener): () => void;
}

/** How the room page shows a conversation opened from the list or a notice. */
export interface ConversationOpener {
  /** True when private conversations open within the page rather than in a popup (a phone). */
  inRoom(): boolean;
  show(conversationId: string): void;
}

const ChatContext = createContext<ChatContextValue | null>(null);

export function useChat(): ChatContextValue {
  const value = useContext(ChatContext);
  if (!value) throw new Error('useChat doit être utilisé dans ChatProvider');
  return value;
}

const noopSubscribe = () => () => undefined;

/** The snapshot of one conversation's feed, re-rendering on every change. */
export function useConversationFeed(conversationId: string): {
  feed: ConversationFeed;
  snapshot: FeedSnapshot;
} {
  const chat = useChat();
  const feed = chat.feed(conversationId);
  const snapshot = useSyncExternalStore(feed?.subscribe ?? noopSubscribe, feed.getSnapshot, feed.getSnapshot);
  return { feed, snapshot };
}

/** True while the page is visible (not in a background tab or minimised). */
export function useDocumentVisible(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      document.addEventListener('visibilitychange', onChange);
      return () => document.removeEventListener('visibilitychange', onChange);
    },
    () => document.visibilityState === 'visible',
    () => true,
  );
}

/**
 * The room's chat state, shared by the chat panel, the users panel and the header: one feed per
 * conversation (messages exactly once, in order), catch-up after every (re)join and on each poll
 * when the socket is down, unread counts, private conversations in popups, and notices for
 * messages of conversations not in view.
 */
export function ChatProvider({
  info,
  mode,
  popupConversationId,
  children,
}: {
  info: TRingInfo;
  mode: 'room' | 'popup';
  popupConversationId?: string;
  children: ReactNode;
}) {
  const keys = useRingKeys();
  const { status, joinCatchUp, socket } = useRingSocket();
  const client = useQueryClient();
  const notify = useToast();
  const memberId = info.user.id;
  const notifications = useChatNotifications(info.user.username);

  // What the feeds read "now": the keys, the Ring's ephemeral flag, the members.
  const live = useRef({ keys, info, socket });
  useEffect(() => {
    live.current = { keys, info, socket };
  });

  const feeds = useRef(new Map<string, ConversationFeed>());
  const [discounts] = useState(() => new UnreadDiscounts());
  const viewers = useRef(new Map<string, number>());
  const visible = useDocumentVisible();
  const visibleRef = useRef(visible);
  useEffect(() => {
    visibleRef.current = visible;
  }, [visible]);

  const nameOf = useCallback((id: string) => live.current.info.users.find((u) => u.id === id)?.username, []);

  const titleOf = useCallback(
    (conversationId: string) => {
      if (conversationId === ROOM_CONVERSATION_ID) return `Salon • ${info.ring.name}`;
      const [, a, b] = conversationId.split(':');
      const peerId = a === memberId ? b : a;
      return `Conversation privée avec ${(peerId && nameOf(peerId)) ?? 'un membre'}`;
    },
    [info.ring.name, memberId, nameOf],
  );

  const inView = useCallback(
    (conversationId: string) => {
      if (mode === 'room' && conversationId !== ROOM_CONVERSATION_ID && isPopupOpen(conversationId)) {
        // Its popup shows it (and raises its own notices when hidden).
        return true;
      }
      return visibleRef.current && (viewers.current.get(conversationId) ?? 0) > 0;
    },
    [mode],
  );

  const handlesNotices = useCallback(
    (conversationId: string) => (mode === 'popup' ? conversationId === popupConversationId : true),
    [mode, popupConversationId],
  );

  const presentNotice = notifications.present;
  // openConversation, defined below (a notice opens its conversation).
  const openConversationRef = useRef<(conversationId: string) => void>(() => undefined);
  const noticeFor = useCallback(
    async (message: {
      conversationId: string;
      messageId: string;
      senderId: string;
      senderName: string;
      content: string | null;
      messageType: TNewMessageEvent['messageType'];
      isEphemeral: boolean;
      text?: string | null;
    }) => {
      if (!handlesNotices(message.conversationId) || message.senderId === memberId) return;
      if (inView(message.conversationId)) return;
      let text = message.text ?? null;
      if (text === null && message.content) {
        try {
          text = (await live.current.keys.decryptText(message.content, message.conversationId)).plaintext;
        } catch {
          text = null;
        }
      }
      // A call entry: the room's call host already told of the missed call (no second notice).
      if (text !== null && parseCallNotice(text)) return;
      // Reactions, edits and deletions raise no notice; a mention of this member does, even muted.
      if (text !== null && isSilentAction(text)) return;
      const mentioned = text !== null && mentionsMember(text, memberId);
      if (text !== null) text = plainTextOf(text);
      const dm = message.conversationId.startsWith('dm:');
      presentNotice({
        mentioned,
        conversationId: message.conversationId,
        messageId: message.messageId,
        fromUsername: message.senderName,
        title: dm
          ? `Message privé de ${message.senderName}`
          : `${message.senderName} • ${titleOf(message.conversationId)}`,
        messageType: dm ? 'dm' : mentioned ? 'mention' : message.messageType,
        isEphemeral: message.isEphemeral,
        text,
        own: false,
        inView: false,
        // Clicking the notice opens the conversation (issue 29).
        onOpen: () => openConversationRef.current(message.conversationId),
      });
    },
    [handlesNotices, inView, memberId, presentNotice, titleOf],
  );

  const noticeRef = useRef(noticeFor);
  useEffect(() => {
    noticeRef.current = noticeFor;
  });

  // A message under a key this tab lacks: read the key state again (debounced).
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const scheduleKeyRefresh = useCallback(() => {
    if (refreshTimer.current) return;
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = undefined;
      live.current.keys.refresh();
    }, 1000);
  }, []);
  useEffect(() => () => clearTimeout(refreshTimer.current), []);

  const feed = useCallback(
    (conversationId: string) => {
      let existing = feeds.current.get(conversationId);
      if (!existing) {
        existing = new ConversationFeed({
          conversationId,
          memberId,
          username: info.user.username,
          // Sends over the socket while it has joined the room, through send.php otherwise.
          api: socketFirstChatApi({
            joinedSocket: () => {
              const current = live.current.socket;
              return current?.connected && joinCatchUp.isJoined ? current : null;
            },
            ringId: () => live.current.info.ring.id,
          }),
          keys: () => live.current.keys,
          ephemeralSec: () =>
            live.current.info.ring.ephemeral ? live.current.info.ring.autoDestroyDelay : null,
          sendReadReceipts: async (conversationId, messageIds) => {
            const { socket: current, info: now } = live.current;
            if (!current?.connected) throw new Error('hors ligne');
            const ack = await current
              .timeout(10_000)
              .emitWithAck('message_read', { ringId: now.ring.id, conversationId, messageIds });
            if (!ack.ok) throw new Error(ack.error);
            return ack.reads;
          },
          onMissingKey: scheduleKeyRefresh,
          joined: () => joinCatchUp.isJoined,
          onNew: (entries: readonly ChatEntry[]) => {
            for (const entry of entries) {
              void noticeRef.current({
                conversationId: entry.conversationId,
                messageId: entry.id ?? entry.key,
                senderId: entry.senderId,
                senderName: entry.senderName,
                content: entry.content,
                messageType: entry.isEphemeral ? 'ephemeral' : 'text',
                isEphemeral: entry.isEphemeral,
              });
            }
          },
          // No toast for one's own sent message (issue 29): the message itself shows it was sent.
          onSendError: (message) => notify({ title: 'Erreur', description: message, variant: 'error' }),
        });
        feeds.current.set(conversationId, existing);
        discounts.watch(existing);
      }
      return existing;
    },
    // The feeds live as long as the page; their callbacks read the latest state through refs.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [memberId],
  );

  // The feeds (messages and decrypted texts) are forgotten when the page's chat goes away. Deferred
  // by a tick: a remount in the same commit (React's strict mode) keeps them.
  const disposeTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    const all = feeds.current;
    clearTimeout(disposeTimer.current);
    return () => {
      disposeTimer.current = setTimeout(() => {
        for (const f of all.values()) f.dispose();
        all.clear();
        discounts.dispose();
      }, 0);
    };
  }, [discounts]);

  // Admitted at last (or its new keys confirmed): the server now serves what the member may read
  // (with the history, messages from before its admission) — read the latest pages again.
  const admission = keys.admission;
  const previousAdmission = useRef(admission);
  useEffect(() => {
    const before = previousAdmission.current;
    previousAdmission.current = admission;
    if (admission === 'admitted' && (before === 'waiting' || before === 'key_pending'))
      for (const f of feeds.current.values()) void f.reloadLatest();
  }, [admission]);

  // Keys changed (new epoch key, a member's keys): messages waiting for them are tried again.
  useEffect(() => {
    for (const f of feeds.current.values()) f.retryWaiting();
  }, [keys]);

  // A member's key change reached the log (or waits): messages that did not verify are checked again.
  const keyChanges = keys.keyChanges;
  useEffect(() => {
    for (const f of feeds.current.values()) f.retryUnverifiable();
  }, [keyChanges]);

  const showing = useCallback((conversationId: string) => {
    viewers.current.set(conversationId, (viewers.current.get(conversationId) ?? 0) + 1);
    return () => {
      const count = (viewers.current.get(conversationId) ?? 1) - 1;
      if (count <= 0) viewers.current.delete(conversationId);
      else viewers.current.set(conversationId, count);
    };
  }, []);

  // ---- unread counts --------------------------------------------------------------------------

  const refreshMs = useRingRefreshMs();
  const conversationsQuery = useQuery({
    queryKey: CONVERSATIONS_KEY,
    queryFn: ({ signal }) => listConversations(signal),
    // A popup reads it once: its read position places the « Nouveaux messages » line.
    refetchInterval: mode === 'room' ? refreshMs : false,
  });
  // Reactions, edits and deletions this browser decrypted are not shown as unread (issue 29).
  useEffect(() => {
    discounts.setMarks(
      new Map((conversationsQuery.data?.conversations ?? []).map((c) => [c.id, c.lastReadSeq])),
    );
  }, [conversationsQuery.data, discounts]);
  const discount = useSyncExternalStore(discounts.subscribe, discounts.getSnapshot, discounts.getSnapshot);
  const conversations = useMemo(
    () =>
      (conversationsQuery.data?.conversations ?? []).map((c) => {
        const silent = discount.get(c.id);
        return silent ? { ...c, unread: shownUnread(c.unread, silent) } : c;
      }),
    [conversationsQuery.data, discount],
  );
  const refetchList = useCallback(() => {
    if (mode === 'room') void client.invalidateQueries({ queryKey: CONVERSATIONS_KEY });
  }, [client, mode]);
  const listTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refetchListSoon = useCallback(() => {
    clearTimeout(listTimer.current);
    listTimer.current = setTimeout(refetchList, 400);
  }, [refetchList]);
  useEffect(() => () => clearTimeout(listTimer.current), []);

  // A popup marked its conversation read; the room comes back to the foreground.
  useEffect(() => {
    if (mode !== 'room') return;
    const stop = onConversationRead(() => refetchListSoon());
    window.addEventListener('focus', refetchListSoon);
    return () => {
      stop();
      window.removeEventListener('focus', refetchListSoon);
    };
  }, [mode, refetchListSoon]);

  const lastMarked = useRef(new Map<string, number>());
  const markRead = useCallback(
    (conversationId: string, seq: number) => {
      if (seq <= (lastMarked.current.get(conversationId) ?? 0)) return;
      lastMarked.current.set(conversationId, seq);
      postMarkRead(conversationId, seq).then(
        (answer) => {
          client.setQueryData<{ success: true; conversations: TConversationSummary[] }>(
            CONVERSATIONS_KEY,
            (old) =>
              old
                ? {
                    ...old,
                    conversations: old.conversations.map((c) =>
                      c.id === conversationId
                        ? { ...c, lastReadSeq: answer.lastReadSeq, unread: answer.unread }
                        : c,
                    ),
                  }
                : old,
          );
          announceConversationRead(conversationId);
        },
        () => lastMarked.current.delete(conversationId),
      );
    },
    [client],
  );

  const unreadOf = useCallback(
    (conversationId: string) => conversations.find((c) => c.id === conversationId)?.unread ?? 0,
    [conversations],
  );
  const listLoaded = conversationsQuery.data !== undefined;
  const listFailed = conversationsQuery.isError;
  const readMarkOf = useCallback(
    (conversationId: string) => {
      if (!listLoaded) return listFailed ? null : undefined;
      return conversations.find((c) => c.id === conversationId)?.lastReadSeq ?? 0;
    },
    [conversations, listLoaded, listFailed],
  );

  // ---- realtime --------------------------------------------------------------------------------

  const catchUpAll = useCallback(async () => {
    const results = await Promise.all([...feeds.current.values()].map((f) => f.catchUp()));
    refetchList();
    return results.some(Boolean);
  }, [refetchList]);

  // At every (re)join, join_ring names the conversations loaded here and its answer brings what
  // they missed; the others (and those past the answer's page) ask get.php. A room page also has
  // the answer bring its conversation list again, for the unread counts (a private conversation
  // may have started meanwhile); without it in the answer, the list is read again over HTTP.
  const refetchListRef = useRef(refetchList);
  useEffect(() => {
    refetchListRef.current = refetchList;
  });
  useEffect(
    () =>
      joinCatchUp.register({
        held: () =>
          [...feeds.current.values()]
            .map((f) => f.joinCatchUp())
            .filter((item): item is TJoinCatchUp => item !== undefined),
        wantsConversations: () => mode === 'room',
        joined: ({ missed, conversations }) => {
          for (const f of feeds.current.values()) f.joined(missed.get(f.conversationId));
          if (conversations)
            client.setQueryData(CONVERSATIONS_KEY, {
              success: true as const,
              conversations: [...conversations],
            });
          else refetchListRef.current();
        },
      }),
    [joinCatchUp, mode, client],
  );

  // Polling, while the socket is down and the settings allow it. A DM that only shows up in the
  // list (its popup closed) raises a notice without its text.
  const previousDmSeqs = useRef<Map<string, number> | null>(null);
  const realtime = useRealtimeFallback(status, catchUpAll);
  useEffect(() => {
    if (mode !== 'room' || !conversationsQuery.data) return;
    const next = new Map(conversations.filter((c) => c.kind === 'dm').map((c) => [c.id, c.lastSeq]));
    const previous = previousDmSeqs.current;
    previousDmSeqs.current = next;
    if (!previous || status === 'connected') return;
    for (const conversation of conversations) {
      if (conversation.kind !== 'dm' || !conversation.peer || conversation.unread === 0) continue;
      const before = previous.get(conversation.id) ?? 0;
      if (conversation.lastSeq > before) {
        void noticeRef.current({
          conversationId: conversation.id,
          messageId: `${conversation.id}:${conversation.lastSeq}`,
          senderId: conversation.peer.id,
          senderName: conversation.peer.username,
          content: null,
          messageType: 'dm',
          isEphemeral: false,
        });
      }
    }
  }, [conversations, conversationsQuery.data, mode, status]);

  useRingEvent('new_message', (event) => {
    const target = feeds.current.get(event.conversationId);
    if (target) target.receive(event);
    else
      void noticeRef.current({
        conversationId: event.conversationId,
        messageId: event.messageId,
        senderId: event.fromUserId,
        senderName: event.fromUsername,
        content: event.content,
        messageType: event.messageType,
        isEphemeral: event.isEphemeral,
      });
    if (!inView(event.conversationId) && event.fromUserId !== memberId) refetchListSoon();
  });

  useRingEvent('message_first_read', (event) => {
    feeds.current.get(event.conversationId)?.firstRead(event.messageId, event.readAt);
  });

  useRingEvent('messages_deleted', (event) => {
    feeds.current.get(event.conversationId)?.removeIds(event.messageIds);
    refetchListSoon();
  });

  // ---- private conversations -------------------------------------------------------------------

  const opener = useRef<ConversationOpener | null>(null);
  const registerOpener = useCallback((next: ConversationOpener) => {
    opener.current = next;
    return () => {
      if (opener.current === next) opener.current = null;
    };
  }, []);

  const openDm = useCallback(
    (peer: { id: string; username: string }) => {
      if (peer.id === memberId) return;
      const failed = (error: unknown) =>
        notify({
          title: 'DM',
          description: error instanceof Error ? error.message : CHAT_MESSAGES.dmFailed,
          variant: 'error',
        });
      // On a phone the conversation opens within the room (a popup there is a whole new tab).
      const inRoom = opener.current?.inRoom() ? opener.current : null;
      if (inRoom) createDm(peer.id).then((id) => inRoom.show(id), failed);
      else openDmPopup(memberId, peer.id).catch(failed);
      // The conversation may be new to the list.
      setTimeout(refetchList, 1000);
    },
    [memberId, notify, refetchList],
  );

  const openConversation = useCallback(
    (conversationId: string) => {
      const current = opener.current;
      if (current && (conversationId === ROOM_CONVERSATION_ID || current.inRoom())) {
        current.show(conversationId);
        return;
      }
      const peerId = conversationId
        .split(':')
        .slice(1)
        .find((id) => id !== memberId);
      if (conversationId.startsWith('dm:') && peerId) openDm({ id: peerId, username: '' });
    },
    [memberId, openDm],
  );
  useEffect(() => {
    openConversationRef.current = openConversation;
  });

  const value = useMemo<ChatContextValue>(
    () => ({
      mode,
      info,
      feed,
      showing,
      realtime,
      conversations,
      unreadOf,
      markRead,
      openDm,
      notifications,
      titleOf,
      readMarkOf,
      openConversation,
      registerOpener,
    }),
    [
      mode,
      info,
      feed,
      showing,
      realtime,
      conversations,
      unreadOf,
      markRead,
      openDm,
      notifications,
      titleOf,
      readMarkOf,
      openConversation,
      registerOpener,
    ],
  );
  return (
    <ChatContext.Provider value={value}>
      <ReadingStateProvider>{children}</ReadingStateProvider>
    </ChatContext.Provider>
  );
}

/**
 * The current time, re-rendering every second while `enabled` (ephemeral countdowns); 0 otherwise.
 * Read at render (to the tenth of a second), so a list shown after a while starts from the real time.
 */
export function useSecondTicker(enabled: boolean): number {
  const subscribe = useCallback(
    (onChange: () => void) => {
      if (!enabled) return () => undefined;
      const timer = setInterval(onChange, 1000);
      return () => clearInterval(timer);
    },
    [enabled],
  );
  return useSyncExternalStore(
    subscribe,
    () => (enabled ? Math.floor(Date.now() / 100) * 100 : 0),
    () => 0,
  );
}
