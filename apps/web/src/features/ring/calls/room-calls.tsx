import type { TCallEvent, TIncomingCall, TRingInfo, TRingRoomUser } from '@securering/contract';
import { Phone, Video } from 'lucide-react';
import { lazy, Suspense, useCallback, useRef, useState, useSyncExternalStore } from 'react';
import { Button } from '@/components/ui/button';
import { useToast } from '@/components/ui/toast';
import { useRingInfo } from '../api/ring-info';
import { useRingEvent, useRingSocket } from '../realtime/ring-socket';
import {
  getOngoingCalls,
  markCallAnswered,
  markCallOver,
  openCallPopup,
  subscribeOngoingCalls,
} from './call-popups';
import { callButtonsFor, callTitle, type CallParams } from './call-policy';
import { endPlacedCall, trackPlacedCall, useCallTimeline } from './call-timeline';

// The ringing card (ringtone, vibration, desktop notice) loads with the first incoming call.
const IncomingCallCard = lazy(() => import('./incoming-call-card'));
// « Appel en cours avec … — Revenir à l'appel »: only while a call popup of this room is answered.
const OngoingCallBar = lazy(() => import('./ongoing-call-bar'));

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
      // The server tells the other member, not this socket: the timeline hears it from here.
      endPlacedCall(params.callId, answered ? 'hangup' : 'cancelled');
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
  const actions = useCallActions(user);
  if (!actions) return null;
  const { voice, video, handleCall } = actions;

  return (
    <div className="mt-1 flex flex-wrap items-center gap-2">
      {voice ? (
        <Button variant="outline" size="sm" className="h-7 px-2 text-xs" onClick={() => handleCall(true)}>
          <Phone aria-hidden /> {callTitle(true, user.username)}
        </Button>
      ) : null}
      {video ? (
        <Button variant="outline" size="sm" className="h-7 px-2 text-xs" onClick={() => handleCall(false)}>
          <Video aria-hidden /> {callTitle(false, user.username)}
        </Button>
      ) : null}
    </div>
  );
}

/**
 * The calls this member may place to `user` (same rules as CallButtons) and the handler that opens
 * the call popup; null when none. Used by the member's « ⋯ » menu in the users panel (issue 28).
 */
export function useCallActions(
  user: TRingRoomUser,
): { voice: boolean; video: boolean; handleCall: (audioOnly: boolean) => void } | null {
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
    if (openCallPopup(params, onClosed(params))) trackPlacedCall(params);
    else notify({ title: 'Appel', description: POPUP_BLOCKED, variant: 'error' });
  };
  return { voice: buttons.voice, video: buttons.video, handleCall };
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
  const ongoing = useSyncExternalStore(subscribeOngoingCalls, getOngoingCalls);
  useCallTimeline();

  useRingEvent('call_invite', (event) => {
    if (event.toUserId && event.toUserId !== selfId) return;
    setIncoming(event);
  });
  const over = (event: TCallEvent) => {
    markCallOver(event.callId);
    setIncoming((current) => (current?.callId === event.callId ? null : current));
  };
  // Still ringing here when the caller gave up or the time ran out: a missed call (issue 28), told
  // once whether the server's cancellation or the card's own 30 s end comes first.
  const missedTold = useRef(new Set<string>());
  const tellMissed = (call: Incoming) => {
    if (missedTold.current.has(call.callId)) return;
    missedTold.current.add(call.callId);
    notify({
      title: 'Appel manqué',
      description: `Appel manqué de ${call.fromUsername}`,
      variant: 'info',
      duration: 15_000,
    });
  };
  useRingEvent('call_cancel', (event) => {
    if (incoming?.callId === event.callId && event.fromUserId !== selfId) tellMissed(incoming);
    over(event);
  });
  useRingEvent('call_reject', over);
  useRingEvent('call_hangup', over);
  useRingEvent('call_accept', (event) => {
    markCallAnswered(event.callId);
    // Answered by this member elsewhere (another tab, or this room's popup): stop ringing here.
    if (event.fromUserId === selfId)
      setIncoming((current) => (current?.callId === event.callId ? null : current));
  });

  const bar =
    ongoing.length > 0 ? (
      <Suspense fallback={null}>
        <OngoingCallBar calls={ongoing} />
      </Suspense>
    ) : null;
  if (!incoming) return bar;
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
    <>
      {bar}
      <Suspense fallback={null}>
        <IncomingCallCard
          key={call.callId}
          call={call}
          onAccept={handleAccept}
          onReject={handleReject}
          onExpire={() => {
            tellMissed(call);
            setIncoming(null);
          }}
        />
      </Suspense>
    </>
  );
}
