import { CHAT_MESSAGES, ROOM_CONVERSATION_ID } from '@securering/contract';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { cn } from '@/lib/utils';
import { keyPendingNote } from '../e2ee/key-confirmers';
import { sendBlockedBy } from '../e2ee/keyring-policy';
import { useRingKeys } from '../e2ee/use-ring-keys';
import { ChatHeader } from './chat-header';
import { useChat, useConversationFeed, useDocumentVisible } from './chat-provider';
import { Composer } from './composer';
import { KeyChangeNotice } from './key-change-notice';
import { MembershipNoticeLine, useMembershipNotices } from './membership-notices';
import { MessageList, type TimelineNotice } from './message-list';
import { usePendingDraft } from './use-pending-draft';

/**
 * The chat screen of one conversation: header, messages, message box. Shown in the room's
 * "Salon du ring" tab and in DM popups. While it is on screen and the page is visible, the
 * conversation counts as read (read.php) and raises no notices.
 */
export function ChatPanel({
  conversationId,
  popup = false,
  onBack,
  className,
}: {
  conversationId: string;
  popup?: boolean;
  onBack?: () => void;
  className?: string;
}) {
  const chat = useChat();
  const keys = useRingKeys();
  const { feed, snapshot } = useConversationFeed(conversationId);
  const visible = useDocumentVisible();
  const { showing, markRead, titleOf, info } = chat;
  const title = titleOf(conversationId);

  useEffect(() => {
    void feed.load();
  }, [feed]);
  useEffect(() => showing(conversationId), [showing, conversationId]);

  // Read while on screen.
  const { highestSeq, loading } = snapshot;
  useEffect(() => {
    if (!visible || loading || highestSeq === 0) return;
    const timer = setTimeout(() => markRead(conversationId, highestSeq), 300);
    return () => clearTimeout(timer);
  }, [visible, loading, highestSeq, conversationId, markRead]);

  // Ephemeral messages on screen for the first time start this reader's countdown (issue 25).
  useEffect(() => {
    if (visible && !loading) feed.markDisplayed();
  }, [visible, loading, snapshot, feed]);

  const peerName = useMemo(() => {
    if (conversationId === ROOM_CONVERSATION_ID) return '';
    const peer = conversationId
      .split(':')
      .slice(1)
      .find((id) => id !== info.user.id);
    return info.users.find((u) => u.id === peer)?.username ?? '';
  }, [conversationId, info.user.id, info.users]);

  // Members this person verified whose keys changed since: no message reaches them until compared again.
  const blockedNames = useMemo(
    () =>
      sendBlockedBy(conversationId, info.user.id, keys.verifiedKeyChanged).map(
        (id) => info.users.find((u) => u.id === id)?.username ?? 'un membre',
      ),
    [keys.verifiedKeyChanged, conversationId, info.user.id, info.users],
  );

  // Members' key changes in the timeline (issue 28): all of them in the room, the peer's in a DM.
  const notices = useMemo<TimelineNotice[]>(() => {
    const peerId = conversationId === ROOM_CONVERSATION_ID ? null : info.users.find((u) => u.username === peerName)?.id;
    return keys.keyChanges.flatMap((change) => {
      const user = info.users.find((u) => u.id === change.memberId);
      if (!user || (peerId !== null && change.memberId !== peerId)) return [];
      return [
        {
          key: `${change.memberId}:${change.at}:${change.pending ? 'pending' : 'logged'}`,
          at: change.at,
          node: <KeyChangeNotice user={user} pending={change.pending} />,
        },
      ];
    });
  }, [keys.keyChanges, info.users, conversationId, peerName]);

  // Members the owner deactivated or brought back while the room was open (issue 28), in the room.
  const membership = useMembershipNotices(info.ring.id);
  const timelineNotices = useMemo<TimelineNotice[]>(
    () =>
      conversationId !== ROOM_CONVERSATION_ID || membership.length === 0
        ? notices
        : [
            ...notices,
            ...membership.map((notice) => ({
              key: `membership:${notice.key}`,
              at: notice.at,
              node: <MembershipNoticeLine notice={notice} />,
            })),
          ],
    [notices, membership, conversationId],
  );

  const debugNotifications = useMemo(
    () => new URLSearchParams(window.location.search).get('debugNotifs') === '1',
    [],
  );
  // In a popup, "Message envoyé" is an inline note for 2 s (the room shows none: issue 29).
  const [sentNote, setSentNote] = useState(false);
  const lastSent = useRef(0);
  const latestSent = snapshot.entries.reduce(
    (max, entry) =>
      entry.isOwn && entry.status === 'sent' && entry.localOrder > max ? entry.localOrder : max,
    0,
  );
  useEffect(() => {
    if (!popup || latestSent <= lastSent.current) return;
    lastSent.current = latestSent;
    const show = setTimeout(() => setSentNote(true), 0);
    const hide = setTimeout(() => setSentNote(false), 2000);
    return () => {
      clearTimeout(show);
      clearTimeout(hide);
    };
  }, [popup, latestSent]);

  const handleSend = useCallback((text: string) => feed.send(text, peerName), [feed, peerName]);
  // The message a session expiry interrupted goes out after the new login (issue 28).
  usePendingDraft(feed, conversationId, info, keys.state, handleSend);
  const handleRetry = useCallback((key: string) => feed.retry(key, peerName), [feed, peerName]);
  const handleDiscard = useCallback((key: string) => feed.discard(key), [feed]);
  const handleOlder = useCallback(() => void feed.loadOlder(), [feed]);

  return (
    <section
      aria-label={title}
      data-conversation-id={conversationId}
      className={cn(
        'flex min-h-0 flex-col overflow-hidden rounded-xl border border-slate-200 bg-white',
        className,
      )}
    >
      <ChatHeader
        title={title}
        popup={popup}
        debugNotifications={debugNotifications}
        {...(onBack ? { onBack } : {})}
      />
      <MessageList
        snapshot={snapshot}
        notices={timelineNotices}
        onLoadOlder={handleOlder}
        onRetry={handleRetry}
        onDiscard={handleDiscard}
      />
      {popup ? (
        <p role="status" className="h-5 px-4 text-right text-xs text-emerald-700">
          {sentNote ? CHAT_MESSAGES.sent : ''}
        </p>
      ) : null}
      <Composer
        keysState={keys.state}
        waitingForAdmission={keys.admission === 'waiting' || keys.admission === 'key_pending'}
        keyPendingNote={keys.admission === 'key_pending' ? keyPendingNote(keys.confirmers) : undefined}
        verifiedKeyChanged={blockedNames}
        sending={snapshot.sending}
        privateConversation={conversationId !== ROOM_CONVERSATION_ID}
        onSend={handleSend}
      />
    </section>
  );
}
