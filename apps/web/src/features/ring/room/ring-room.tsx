import { ROOM_CONVERSATION_ID } from '@securering/contract';
import { FolderOpen, MessageCircle, MessagesSquare, Users } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { FullPageSpinner } from '@/components/ui/spinner';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useToast } from '@/components/ui/toast';
import { useRingSession } from '@/lib/auth/ring-session';
import type { TRingInfo } from '@securering/contract';
import { RING_INFO_KEY, useRingInfo } from '../api/ring-info';
import { isCallQuery } from '../calls/call-policy';
import { IncomingCallHost } from '../calls/room-calls';
import { ChatPanel } from '../chat/chat-panel';
import { ChatPopup } from '../chat/chat-popup';
import { ChatProvider, useChat } from '../chat/chat-provider';
import { ConversationList } from '../chat/conversation-list';
import { totalUnread } from '../chat/reading-marks';
import { useUnreadTitle } from '../chat/use-unread-title';
import { activeConversationOf } from '../chat/dm-popups';
import { useWebPushSync } from '../chat/web-push-flag';
import { RingKeysProvider } from '../e2ee/ring-keys-provider';
import { LazyFilesTab } from '../files/lazy-files-tab';
import { ProtectionLayer } from '../protection/protection-layer';
import { announceWindowFocus } from '../protection/window-focus';
import { RingSocketProvider } from '../realtime/ring-socket';
import { useRingLiveUpdates } from '../realtime/use-ring-live-updates';
import { useAccessEvents } from './access-events';
import { DownloadsCard, RingFooter } from './room-aside';
import { RingUsersPanel } from './ring-users-panel';
import { RoomHeader } from './room-header';
import { useWideLayout } from './use-wide-layout';

// The call screen (`/ring?voice=1…`, a call popup) loads only in call popups.
const CallScreen = lazy(() => import('../calls/call-screen'));

/**
 * The Ring room: once the Ring is read, one socket for the page (RingSocketProvider) and the
 * member's keys (RingKeysProvider) wrap the frame, so every part of the room shares them.
 */
export function RingRoom() {
  const info = useRingInfo();
  const session = useRingSession();
  const client = useQueryClient();
  // `/ring?convId=…` (a DM popup): the chat of that conversation alone.
  const [params] = useSearchParams();
  const conversationId = useMemo(() => activeConversationOf(`?${params.toString()}`), [params]);
  // `/ring?voice=1&…` (a call popup): the call screen alone.
  const callPopup = useMemo(() => isCallQuery(`?${params.toString()}`), [params]);
  // Leaving the room (logout, ended session) forgets the Ring's data with the keys.
  useEffect(() => () => client.removeQueries({ queryKey: RING_INFO_KEY }), [client]);
  // Every window of the Ring (room, DM and call popups) tells the others when it has the focus, so
  // that focus moving between them never masks the content (issue 28).
  useEffect(() => announceWindowFocus(), []);

  if (info.isPending) return <FullPageSpinner />;
  if (info.isError) {
    return (
      <main className="mx-auto max-w-md px-4 py-16">
        <Alert variant="error" title="Ring indisponible">
          {info.error.message}
        </Alert>
        <Button className="mt-4" onClick={() => void session.logout()}>
          Retour à la connexion
        </Button>
      </main>
    );
  }
  if (callPopup) {
    return (
      <RingSocketProvider ringId={info.data.ring.id}>
        <AccessEvents info={info.data} />
        <RingKeysProvider info={info.data}>
          <Suspense fallback={<FullPageSpinner />}>
            <CallScreen info={info.data} />
          </Suspense>
        </RingKeysProvider>
      </RingSocketProvider>
    );
  }
  return (
    <RingSocketProvider ringId={info.data.ring.id}>
      <AccessEvents info={info.data} />
      <RingKeysProvider info={info.data}>
        <ChatProvider
          info={info.data}
          mode={conversationId ? 'popup' : 'room'}
          {...(conversationId ? { popupConversationId: conversationId } : {})}
        >
          {conversationId ? (
            <ChatPopup info={info.data} conversationId={conversationId} />
          ) : (
            <RoomFrame info={info.data} />
          )}
        </ChatProvider>
      </RingKeysProvider>
    </RingSocketProvider>
  );
}

/** Suspension, session expiry and other members' suspensions, on the page's socket. */
function AccessEvents({ info }: { info: TRingInfo }) {
  useAccessEvents(info);
  return null;
}

/** The room's tab and, on a phone, the conversation open in it: kept across a reload of the page. */
const ROOM_TAB_KEY = 'secureRing.roomTab';
const ROOM_CONVERSATION_KEY = 'secureRing.roomConversation';

function saved(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function save(key: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    // Storage disabled: forgotten at reload.
  }
}

/** Header, the chat and files tabs, the users panel, downloads, footer. */
function RoomFrame({ info }: { info: TRingInfo }) {
  const notify = useToast();
  useWebPushSync(info.user.id, info.ring.id, info.ring.name);
  const onSettingsChanged = useCallback(
    () => notify({ title: 'Paramètres du Ring mis à jour', variant: 'info', duration: 3000 }),
    [notify],
  );
  useRingLiveUpdates(onSettingsChanged);
  const { ring } = info;
  const chat = useChat();
  const roomUnread = chat.unreadOf(ROOM_CONVERSATION_ID);
  const unread = totalUnread(chat.conversations);
  useUnreadTitle(unread);
  const wide = useWideLayout();
  // A phone opens on « Discussions » (issue 29), as messaging apps do: the room and the private
  // conversations, each opening in place of the list; « Membres » is a tab there too. A wide window
  // keeps « Salon du ring » as a tab with the conversations and the members beside it.
  const [tab, setTabState] = useState(() => saved(ROOM_TAB_KEY) ?? (wide ? 'room' : 'conversations'));
  const setTab = useCallback((next: string) => {
    setTabState(next);
    save(ROOM_TAB_KEY, next);
  }, []);
  const shownTab = wide
    ? tab === 'members' || tab === 'conversations'
      ? 'room'
      : tab
    : tab === 'room'
      ? 'conversations'
      : tab;
  // The conversation open on a phone, in place of the list.
  const [phoneConversation, setPhoneConversationState] = useState(() => saved(ROOM_CONVERSATION_KEY));
  const setPhoneConversation = useCallback((next: string | null) => {
    setPhoneConversationState(next);
    save(ROOM_CONVERSATION_KEY, next);
  }, []);
  // A window narrowed while it showed the room keeps showing it.
  const phoneShown = phoneConversation ?? (tab === 'room' ? ROOM_CONVERSATION_ID : null);
  const handlePhoneBack = useCallback(() => {
    setPhoneConversation(null);
    setTab('conversations');
  }, [setPhoneConversation, setTab]);
  const wideRef = useRef(wide);
  useEffect(() => {
    wideRef.current = wide;
  });
  // Private conversations open in their popup on a desktop (several side by side, as before), in the
  // room on a phone, where a popup is a whole new browser tab with no way back.
  const { registerOpener, openConversation } = chat;
  useEffect(
    () =>
      registerOpener({
        inRoom: () => !wideRef.current,
        show: (conversationId) => {
          if (wideRef.current) {
            setTab('room');
          } else {
            setPhoneConversation(conversationId);
            setTab('conversations');
          }
        },
      }),
    [registerOpener, setTab, setPhoneConversation],
  );

  return (
    // Phones (below `lg`, issue 28): the room is exactly the screen's height, the conversation fills
    // what the compact header leaves, its message box stays at the bottom, and the members are a tab.
    <div
      className="flex h-dvh flex-col bg-slate-50 lg:h-auto lg:min-h-screen"
      data-room-layout={wide ? 'wide' : 'phone'}
    >
      <RoomHeader info={info} />
      <div className="mx-auto flex min-h-0 w-full max-w-7xl flex-1 flex-col px-2 pt-2 sm:px-4 lg:grid lg:grid-cols-[1fr_20rem] lg:items-start lg:gap-6 lg:py-6">
        <ProtectionLayer
          settings={ring.screenProtection}
          viewerName={info.user.username}
          memberId={info.user.id}
          className="flex min-h-0 min-w-0 flex-1 flex-col lg:flex-none"
          contentClassName="flex min-h-0 flex-1 flex-col"
        >
          <Tabs value={shownTab} onValueChange={setTab} className="flex min-h-0 flex-1 flex-col">
            <TabsList className="self-start max-lg:max-w-full max-lg:overflow-x-auto max-lg:[&_svg]:hidden max-lg:[&>button]:px-2">
              {wide ? null : (
                <TabsTrigger value="conversations">
                  <MessageCircle aria-hidden /> Discussions
                  {unread > 0 ? (
                    <span className="rounded-full bg-primary px-1.5 text-xs text-primary-foreground">
                      {unread}
                      <span className="sr-only"> non lus</span>
                    </span>
                  ) : null}
                </TabsTrigger>
              )}
              {wide ? (
                <TabsTrigger value="room">
                  <MessagesSquare aria-hidden /> Salon du ring
                  {roomUnread > 0 ? (
                    <span className="rounded-full bg-primary px-1.5 text-xs text-primary-foreground">
                      {roomUnread}
                      <span className="sr-only"> non lus</span>
                    </span>
                  ) : null}
                </TabsTrigger>
              ) : null}
              <TabsTrigger value="files">
                <FolderOpen aria-hidden /> Fichiers du ring
              </TabsTrigger>
              {wide ? null : (
                <TabsTrigger value="members">
                  <Users aria-hidden /> Membres
                </TabsTrigger>
              )}
            </TabsList>
            {wide ? null : (
              <TabsContent value="conversations" className="relative mt-2 flex min-h-0 flex-1 flex-col">
                {phoneShown ? (
                  <ChatPanel
                    key={phoneShown}
                    conversationId={phoneShown}
                    onBack={handlePhoneBack}
                    className="relative min-h-0 flex-1 rounded-b-none border-b-0"
                  />
                ) : (
                  <div className="min-h-0 flex-1 overflow-y-auto rounded-xl border border-slate-200 bg-white p-1">
                    <ConversationList onOpen={openConversation} />
                  </div>
                )}
              </TabsContent>
            )}
            {wide ? (
              <TabsContent value="room" className="mt-4 flex min-h-0 flex-1 flex-col">
                <ChatPanel
                  conversationId={ROOM_CONVERSATION_ID}
                  className="relative h-[min(72vh,44rem)] min-h-[26rem] flex-none"
                />
              </TabsContent>
            ) : null}
            <TabsContent
              value="files"
              className="relative mt-2 min-h-0 flex-1 overflow-y-auto pb-4 lg:mt-4 lg:pb-0"
            >
              <LazyFilesTab />
            </TabsContent>
            {wide ? null : (
              <TabsContent
                value="members"
                className="relative mt-2 min-h-0 flex-1 space-y-4 overflow-y-auto pb-4"
              >
                <RingUsersPanel users={info.users} />
                <DownloadsCard />
                <RingFooter />
              </TabsContent>
            )}
          </Tabs>
        </ProtectionLayer>
        {wide ? (
          <aside className="space-y-6">
            <ConversationsCard onOpen={openConversation} />
            <RingUsersPanel users={info.users} />
            <DownloadsCard />
          </aside>
        ) : null}
      </div>
      {wide ? <RingFooter /> : null}
      <IncomingCallHost info={info} />
    </div>
  );
}

/** « Conversations » beside the chat on a desktop: the room and the private conversations. */
function ConversationsCard({ onOpen }: { onOpen: (conversationId: string) => void }) {
  return (
    <section
      aria-labelledby="conversations-title"
      className="rounded-xl border border-slate-200 bg-white p-3 shadow-sm"
    >
      <h2 id="conversations-title" className="px-2 pb-1 font-semibold">
        Conversations
      </h2>
      <ConversationList onOpen={onOpen} className="max-h-[min(40vh,24rem)] overflow-y-auto" />
    </section>
  );
}
