import { ROOM_CONVERSATION_ID } from '@securering/contract';
import { FolderOpen, MessagesSquare } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo } from 'react';
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
import { DownloadsCard, RingFooter } from './room-aside';
import { RingUsersPanel } from './ring-users-panel';
import { RoomHeader } from './room-header';

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

  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <RoomHeader info={info} />
      <div className="mx-auto grid w-full max-w-7xl flex-1 gap-6 px-4 py-6 lg:grid-cols-[1fr_20rem]">
        <ProtectionLayer
          settings={ring.screenProtection}
          viewerName={info.user.username}
          memberId={info.user.id}
          className="min-w-0 self-start"
        >
          <Tabs defaultValue="room">
            <TabsList>
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
            </TabsList>
            <TabsContent value="room">
              <ChatPanel
                conversationId={ROOM_CONVERSATION_ID}
                className="h-[min(72vh,44rem)] min-h-[26rem]"
              />
            </TabsContent>
            <TabsContent value="files">
              <LazyFilesTab />
            </TabsContent>
          </Tabs>
        </ProtectionLayer>
        <aside className="space-y-6">
          <RingUsersPanel users={info.users} />
          <DownloadsCard />
        </aside>
      </div>
      <RingFooter />
      <IncomingCallHost info={info} />
    </div>
  );
}
