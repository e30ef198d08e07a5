import { ROOM_CONVERSATION_ID } from '@securering/contract';
import { FolderOpen, MessagesSquare, Users } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
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
import { activeConversationOf } from '../chat/dm-popups';
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

/** Header, the chat and files tabs, the users panel, downloads, footer. */
function RoomFrame({ info }: { info: TRingInfo }) {
  const notify = useToast();
  const onSettingsChanged = useCallback(
    () => notify({ title: 'Paramètres du Ring mis à jour', variant: 'info', duration: 3000 }),
    [notify],
  );
  useRingLiveUpdates(onSettingsChanged);
  const { ring } = info;
  const chat = useChat();
  const roomUnread = chat.unreadOf(ROOM_CONVERSATION_ID);
  const wide = useWideLayout();
  // « Membres » is a tab on phones only: on a wide window the panel is beside the chat.
  const [tab, setTab] = useState('room');
  const shownTab = wide && tab === 'members' ? 'room' : tab;

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
            <TabsList className="self-start max-lg:[&_svg]:hidden max-lg:[&>button]:px-2.5">
              <TabsTrigger value="room">
                <MessagesSquare aria-hidden /> Salon du ring
                {roomUnread > 0 ? (
                  <span className="rounded-full bg-primary px-1.5 text-xs text-primary-foreground">
                    {roomUnread}
                    <span className="sr-only"> non lus</span>
                  </span>
                ) : null}
              </TabsTrigger>
              <TabsTrigger value="files">
                <FolderOpen aria-hidden /> Fichiers du ring
              </TabsTrigger>
              {wide ? null : (
                <TabsTrigger value="members">
                  <Users aria-hidden /> Membres
                </TabsTrigger>
              )}
            </TabsList>
            <TabsContent value="room" className="mt-2 flex min-h-0 flex-1 flex-col lg:mt-4">
              <ChatPanel
                conversationId={ROOM_CONVERSATION_ID}
                className="relative min-h-0 flex-1 rounded-b-none border-b-0 lg:h-[min(72vh,44rem)] lg:min-h-[26rem] lg:flex-none lg:rounded-b-xl lg:border-b"
              />
            </TabsContent>
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
