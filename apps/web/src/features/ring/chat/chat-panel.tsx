import { CHAT_MESSAGES, ROOM_CONVERSATION_ID } from '@securering/contract';
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { cn } from '@/lib/utils';
import { keyPendingNote } from '../e2ee/key-confirmers';
import { sendBlockedBy } from '../e2ee/keyring-policy';
import { useRingKeys } from '../e2ee/use-ring-keys';
import { ChatHeader } from './chat-header';
import { useChat, useConversationFeed, useDocumentVisible } from './chat-provider';
import { Composer } from './composer';
import { KeyChangeNotice } from './key-change-notice';
import { MembershipNoticeLine, useMembershipNotices } from './membership-notices';
import { membershipTimeline } from './membership-timeline';
import { MessageList, type TimelineNotice } from './message-list';
import { usePendingDraft } from './use-pending-draft';
import { MessageActionsContext, useMessageActions } from './use-message-actions';
import { LazyAttachmentUploads, attachmentsUsed } from './lazy-attachments';
import { TypingLine, useReadingSignals } from './reading-state';

/** Who reads what is attached (issue 29; docs/SECURITY.md « Pièces jointes »). */
const ATTACH_NOTE = {
  room: 'Joindre un fichier (chiffré, rangé aussi dans «\u202fPièces jointes\u202f» des fichiers du Ring)',
  dm: 'Les pièces jointes sont rangées dans «\u202fPièces jointes\u202f» des fichiers du Ring\u202f: tous ses membres peuvent les lire, pas seulement votre correspondant.',
} as const;

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
  // Typing indicators and read receipts (issue 29), when the owner signed them on.
  const reading = useReadingSignals();
  const nameOf = useCallback((id: string) => info.users.find((u) => u.id === id)?.username, [info.users]);

  useEffect(() => {
    void feed.load();
  }, [feed]);
  useEffect(() => showing(conversationId), [showing, conversationId]);

  // The read position when the conversation opened (issue 29): « Nouveaux messages » goes after it.
  // Reading waits for it, so that the line is placed before this screen moves it.
  const knownMark = chat.readMarkOf(conversationId);
  const [openedMark, setOpenedMark] = useState<number | null | undefined>(knownMark);
  if (openedMark === undefined && knownMark !== undefined) setOpenedMark(knownMark);
  // …and the latest message it then held: those arriving while it is on screen are read as they come.
  const [openedTop, setOpenedTop] = useState<number | null>(null);
  if (openedTop === null && openedMark !== undefined && !snapshot.loading) setOpenedTop(snapshot.highestSeq);
  const unreadRange = useMemo(
    () =>
      openedMark === undefined || openedMark === null || openedTop === null
        ? null
        : { after: openedMark, upTo: openedTop },
    [openedMark, openedTop],
  );

  // Read while on screen.
  const { highestSeq, loading } = snapshot;
  useEffect(() => {
    if (!visible || loading || highestSeq === 0 || openedMark === undefined) return;
    const timer = setTimeout(() => {
      markRead(conversationId, highestSeq);
      reading?.read(conversationId, highestSeq);
    }, 300);
    return () => clearTimeout(timer);
  }, [visible, loading, highestSeq, conversationId, markRead, openedMark, reading]);

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
    const peerId =
      conversationId === ROOM_CONVERSATION_ID ? null : info.users.find((u) => u.username === peerName)?.id;
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

  // Members deactivated or brought back (issue 28), in the room: as the verified log signs it (after
  // a reload too), and the live notices the log does not record yet.
  const liveMembership = useMembershipNotices(info.ring.id);
  const membership = useMemo(
    () => membershipTimeline(liveMembership, keys.membershipChanges),
    [liveMembership, keys.membershipChanges],
  );
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
  // Replies, reactions, edits, deletions and @mentions (issue 29).
  const mentionable = useMemo(
    () =>
      conversationId === ROOM_CONVERSATION_ID
        ? info.users
        : info.users.filter((u) => u.username === peerName),
    [conversationId, info.users, peerName],
  );
  const messageActions = useMessageActions({
    feed,
    snapshot,
    conversationId,
    peerName,
    me: info.user.id,
    members: mentionable,
    send: handleSend,
  });
  const handleRetry = useCallback((key: string) => feed.retry(key, peerName), [feed, peerName]);
  const handleDiscard = useCallback((key: string) => feed.discard(key), [feed]);
  const handleOlder = useCallback(() => void feed.loadOlder(), [feed]);

  // Attachments (issue 29): paperclip, paste, or a drop on the conversation (desktop).
  const [attaching, setAttaching] = useState(() => attachmentsUsed());
  const [dragging, setDragging] = useState(false);
  const latestKeys = useRef(keys);
  useEffect(() => {
    latestKeys.current = keys;
  });
  const handleAttach = useCallback(
    (files: File[]) => {
      setAttaching(attachmentsUsed(true));
      void import('./attachment-send').then(({ sendAttachments }) =>
        sendAttachments(files, {
          conversationId,
          keys: latestKeys.current,
          send: (text) => feed.sendAction(text, peerName),
        }),
      );
    },
    [conversationId, feed, peerName],
  );
  const canDrop = keys.state === 'active' && blockedNames.length === 0;
  const dropFiles = (event: DragEvent) => canDrop && event.dataTransfer.types.includes('Files');

  return (
    <section
      aria-label={title}
      data-conversation-id={conversationId}
      className={cn(
        'flex min-h-0 flex-col overflow-hidden rounded-xl border border-slate-200 bg-white',
        dragging && 'ring-2 ring-primary',
        className,
      )}
      onDragOver={(event) => {
        if (!dropFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
      }}
      onInput={(event) => {
        if ((event.target as HTMLElement).getAttribute('name') === 'message') reading?.typing(conversationId);
      }}
      onDrop={(event) => {
        setDragging(false);
        if (!dropFiles(event)) return;
        event.preventDefault();
        handleAttach([...event.dataTransfer.files]);
      }}
    >
      <ChatHeader
        conversationId={conversationId}
        title={title}
        popup={popup}
        debugNotifications={debugNotifications}
        {...(onBack ? { onBack } : {})}
      />
      <MessageActionsContext.Provider value={messageActions.value}>
        <MessageList
          snapshot={snapshot}
          unreadRange={unreadRange}
          notices={timelineNotices}
          onLoadOlder={handleOlder}
          onRetry={handleRetry}
          onDiscard={handleDiscard}
        />
      </MessageActionsContext.Provider>
      <TypingLine conversationId={conversationId} nameOf={nameOf} />
      {popup ? (
        <p role="status" className="h-5 px-4 text-right text-xs text-emerald-700">
          {sentNote ? CHAT_MESSAGES.sent : ''}
        </p>
      ) : null}
      {attaching ? (
        <LazyAttachmentUploads
          conversationId={conversationId}
          {...(conversationId === ROOM_CONVERSATION_ID ? {} : { note: ATTACH_NOTE.dm })}
        />
      ) : null}
      <Composer
        onAttach={handleAttach}
        attachNote={conversationId === ROOM_CONVERSATION_ID ? ATTACH_NOTE.room : ATTACH_NOTE.dm}
        keysState={keys.state}
        waitingForAdmission={keys.admission === 'waiting' || keys.admission === 'key_pending'}
        keyPendingNote={keys.admission === 'key_pending' ? keyPendingNote(keys.confirmers) : undefined}
        verifiedKeyChanged={blockedNames}
        sending={snapshot.sending}
        privateConversation={conversationId !== ROOM_CONVERSATION_ID}
        onSend={messageActions.submit}
        banner={messageActions.banner}
        prefill={messageActions.prefill}
        members={mentionable.filter((u) => u.id !== info.user.id)}
      />
    </section>
  );
}
