import type { TRingInfo } from '@securering/contract';
import { useCallback, useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useToast } from '@/components/ui/toast';
import { ProtectionLayer } from '../protection/protection-layer';
import { useRingLiveUpdates } from '../realtime/use-ring-live-updates';
import { ChatPanel } from './chat-panel';
import { useChat } from './chat-provider';
import { ACTIVE_CONVERSATION_KEY } from './dm-popups';

/**
 * `/ring?convId=…`: one conversation alone, as the DM popup (520×760) shows it — the same chat
 * screen with a back button and the websocket dot, the page titled after the conversation. Its
 * keys come from the room that opened it (no second passphrase).
 */
export function ChatPopup({ info, conversationId }: { info: TRingInfo; conversationId: string }) {
  const notify = useToast();
  const navigate = useNavigate();
  const onSettingsChanged = useCallback(
    () => notify({ title: 'Paramètres du Ring mis à jour', variant: 'info', duration: 3000 }),
    [notify],
  );
  useRingLiveUpdates(onSettingsChanged);
  const title = useChat().titleOf(conversationId);

  // In a popup the chat sets the page title (spec 2 §2); the room page sets its own before.
  useEffect(() => {
    document.title = title;
  }, [title]);

  const handleBack = () => {
    try {
      sessionStorage.removeItem(ACTIVE_CONVERSATION_KEY);
    } catch {
      // Storage disabled.
    }
    if (window.opener) window.close();
    else void navigate('/ring');
  };

  return (
    <div className="flex h-dvh flex-col bg-slate-50 p-2 sm:p-3">
      <ProtectionLayer
        settings={info.ring.screenProtection}
        viewerName={info.user.username}
        memberId={info.user.id}
        className="flex min-h-0 flex-1 flex-col"
        contentClassName="flex min-h-0 flex-1 flex-col"
      >
        <ChatPanel conversationId={conversationId} popup onBack={handleBack} className="flex-1" />
      </ProtectionLayer>
    </div>
  );
}
