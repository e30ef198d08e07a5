import type { TCallEvent, TIncomingCall, TRingInfo, TRingRoomUser } from '@securering/contract';
import { Phone, Video } from 'lucide-react';
import { lazy, Suspense, useCallback, useState } from 'react';
import { Button } from '@/components/ui/button';
import { useToast } from '@/components/ui/toast';
import { useRingInfo } from '../api/ring-info';
import { useRingEvent, useRingSocket } from '../realtime/ring-socket';
import { markCallAnswered, markCallOver, openCallPopup } from './call-popups';
import { callButtonsFor, callTitle, type CallParams } from './call-policy';

// The ringing card (ringtone, vibration, desktop notice) loads with the first incoming call.
const IncomingCallCard = lazy(() => import('./incoming-call-card'));

const POPUP_BLOCKED = 'Autorisez les fenêtres pop-up de ce site pour passer un appel.';

/** Sends call_cancel (not answered yet) or call_hangup (answered) when a call popup was closed. */
function usePopupClosedHandler() {
  const { socket } = useRingSocket();
  return useCallback(
    (params: CallParams) => (answered: boolean) => {
      socket?.emit(answered ? 'call_hangup' : 'call_cancel', {
        ringId: params.ringId,
        callId: params.callId,
        toUserId: params.peerId,
      });
    },
    [socket],
  );
}

/**
 * "Appel vocal avec {username}" and, when the Ring allows video, "Appel vidéo avec {username}" in
 * "Utilisateurs du Ring" (spec 2 §2, §6: online members but oneself; under voiceAdminOnly only the
 * owner and Ring admins). A click opens the call popup at once with a call id made here; the popup
 * sends the invitation itself, once its own socket and media are ready.
 */
export function CallButtons({ user }: { user: TRingRoomUser }) {
  const info = useRingInfo().data;
  const notify = useToast();
  const onClosed = usePopupClosedHandler();
  if (!info) return null;
  const buttons = callButtonsFor({ viewer: info.user, ring: info.ring }, user);
  if (!buttons.voice && !buttons.video) return null;

  const handleCall = (audioOnly: boolean) => {
    const params: CallParams = {
      ringId: info.ring.id,
      callId: crypto.randomUUID(),
      peerId: user.id,
      peerName: user.username,
      audioOnly,
      incoming: false,
    };
    if (!openCallPopup(params, onClosed(params)))
      notify({ title: 'Appel', description: POPUP_BLOCKED, variant: 'error' });
  };

  return (
    <div className="mt-1 flex flex-wrap items-center gap-2">
      {buttons.voice ? (
        <Button variant="outline" size="sm" className="h-7 px-2 text-xs" onClick={() => handleCall(true)}>
          <Phone aria-hidden /> {callTitle(true, user.username)}
        </Button>
      ) : null}
      {buttons.video ? (
        <Button variant="outline" size="sm" className="h-7 px-2 text-xs" onClick={() => handleCall(false)}>
          <Video aria-hidden /> {callTitle(false, user.username)}
        </Button>
      ) : null}
    </div>
  );
}

type Incoming = TIncomingCall & TCallEvent;

/**
 * The room's side of calls addressed to this member: call_invite shows the ringing card ("Appel
 * vocal avec {user}", 30 s, "Accepter" / "Refuser"); the call's end (cancelled, timed out,
 * answered in another tab) takes it away; "Accepter" opens the call popup, which answers. It also
 * follows the popups this room opened, so closing one ends its call.
 */
export function IncomingCallHost({ info }: { info: TRingInfo }) {
  const { socket } = useRingSocket();
  const notify = useToast();
  const onClosed = usePopupClosedHandler();
  const [incoming, setIncoming] = useState<Incoming | null>(null);
  const selfId = info.user.id;

  useRingEvent('call_invite', (event) => {
    if (event.toUserId && event.toUserId !== selfId) return;
    setIncoming(event);
  });
  const over = (event: TCallEvent) => {
    markCallOver(event.callId);
    setIncoming((current) => (current?.callId === event.callId ? null : current));
  };
  useRingEvent('call_cancel', over);
  useRingEvent('call_reject', over);
  useRingEvent('call_hangup', over);
  useRingEvent('call_accept', (event) => {
    markCallAnswered(event.callId);
    // Answered by this member elsewhere (another tab, or this room's popup): stop ringing here.
    if (event.fromUserId === selfId)
      setIncoming((current) => (current?.callId === event.callId ? null : current));
  });

  if (!incoming) return null;
  const call = incoming;

  const handleAccept = () => {
    const params: CallParams = {
      ringId: call.ringId,
      callId: call.callId,
      peerId: call.fromUserId,
      peerName: call.fromUsername,
      audioOnly: call.callType === 'voice',
      incoming: true,
    };
    setIncoming(null);
    if (!openCallPopup(params, onClosed(params))) {
      notify({ title: 'Appel', description: POPUP_BLOCKED, variant: 'error' });
      socket?.emit('call_reject', { ringId: call.ringId, callId: call.callId, toUserId: call.fromUserId });
    }
  };
  const handleReject = () => {
    setIncoming(null);
    socket?.emit('call_reject', { ringId: call.ringId, callId: call.callId, toUserId: call.fromUserId });
  };

  return (
    <Suspense fallback={null}>
      <IncomingCallCard
        key={call.callId}
        call={call}
        onAccept={handleAccept}
        onReject={handleReject}
        onExpire={() => setIncoming(null)}
      />
    </Suspense>
  );
}
