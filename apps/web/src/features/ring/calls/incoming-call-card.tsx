import {
  DEFAULT_NOTIFICATION_SETTINGS,
  ZNotificationSettingsResponse,
  isMuted,
  type TCallEvent,
  type TIncomingCall,
  type TNotificationSettings,
} from '@securering/contract';
import { useQuery } from '@tanstack/react-query';
import { Phone, PhoneOff, Video } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { apiRequest } from '@/lib/api-client';
import { CALL_VIBRATION_PATTERN, INCOMING_CALL_NOTICE_MS, callTitle } from './call-policy';

// The same query as the room's message notifications: a change made in the room applies at once.
const SETTINGS_KEY = ['ring', 'notification-settings'] as const;
/** The vibration pattern lasts 2.1 s; it starts again after a short pause while the call rings. */
const VIBRATION_EVERY_MS = 3000;

/** The member's call notification settings (defaults when the server cannot answer). */
function useCallNotificationSettings(): TNotificationSettings | null {
  const query = useQuery({
    queryKey: SETTINGS_KEY,
    queryFn: async ({ signal }) => {
      try {
        return (
          await apiRequest('/api/notifications/get-settings.php', {
            auth: 'ring',
            schema: ZNotificationSettingsResponse,
            signal,
          })
        ).settings;
      } catch (error) {
        if (signal.aborted) throw error;
        return DEFAULT_NOTIFICATION_SETTINGS;
      }
    },
    staleTime: 60_000,
  });
  return query.data ?? null;
}

/**
 * The ringing of an incoming call (spec 2 §2 "Appel vocal avec {user}", §9): a card for 30 s with
 * "Accepter" and "Refuser", the member's ringtone at its call volume in a loop, the 500/200 ms ×3
 * vibration where the device can, and a desktop notification when allowed. Muted notifications
 * (muteAll, muteUntil) keep the card but silence the rest. Everything stops when the card goes.
 */
export default function IncomingCallCard({
  call,
  onAccept,
  onReject,
  onExpire,
}: {
  call: TIncomingCall & TCallEvent;
  onAccept: () => void;
  onReject: () => void;
  onExpire: () => void;
}) {
  const titleId = useId();
  const settings = useCallNotificationSettings();
  const audioOnly = call.callType === 'voice';
  const title = callTitle(audioOnly, call.fromUsername);
  const [startedAt] = useState(() => Date.now());
  const [now, setNow] = useState(startedAt);
  const latestExpire = useRef(onExpire);
  useEffect(() => {
    latestExpire.current = onExpire;
  });

  // The notice lasts 30 s (the server cancels the call at the same time).
  useEffect(() => {
    const timer = setTimeout(() => latestExpire.current(), INCOMING_CALL_NOTICE_MS);
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => {
      clearTimeout(timer);
      clearInterval(tick);
    };
  }, []);

  const muted = settings ? isMuted(settings, startedAt) : true;
  const sound = Boolean(settings && settings.callSound && !muted);
  const audio = useRef<HTMLAudioElement>(null);
  useEffect(() => {
    const element = audio.current;
    if (!sound || !element || !settings) return;
    element.volume = settings.callVolume;
    void element.play().catch(() => undefined);
    return () => {
      element.pause();
      element.currentTime = 0;
    };
  }, [sound, settings]);

  const vibrate = Boolean(settings?.callVibration && !muted);
  useEffect(() => {
    if (!vibrate || typeof navigator.vibrate !== 'function') return;
    const run = () => navigator.vibrate([...CALL_VIBRATION_PATTERN]);
    run();
    const timer = setInterval(run, VIBRATION_EVERY_MS);
    return () => {
      clearInterval(timer);
      navigator.vibrate(0);
    };
  }, [vibrate]);

  const desktop = Boolean(
    settings?.callDesktop &&
    !muted &&
    typeof Notification !== 'undefined' &&
    Notification.permission === 'granted',
  );
  useEffect(() => {
    if (!desktop) return;
    let notice: Notification | undefined;
    try {
      notice = new Notification(title, {
        body: `${call.fromUsername} vous appelle`,
        tag: `call-${call.callId}`,
        requireInteraction: true,
      });
      notice.onclick = () => {
        window.focus();
        notice?.close();
      };
    } catch {
      // Some browsers only allow notifications from a service worker: the card remains.
    }
    return () => notice?.close();
  }, [desktop, title, call.fromUsername, call.callId]);

  const remaining = Math.max(0, Math.ceil((INCOMING_CALL_NOTICE_MS - (now - startedAt)) / 1000));

  return (
    <div
      role="alertdialog"
      aria-labelledby={titleId}
      aria-describedby={`${titleId}-desc`}
      data-testid="incoming-call"
      className="fixed inset-x-3 bottom-3 z-50 mx-auto max-w-sm rounded-xl border border-slate-200 bg-white p-4 shadow-2xl sm:inset-x-auto sm:right-4 sm:bottom-4"
    >
      <div className="flex items-center gap-3">
        <span
          className="flex size-11 shrink-0 animate-pulse items-center justify-center rounded-full bg-emerald-100 text-emerald-700"
          aria-hidden
        >
          {audioOnly ? <Phone className="size-5" /> : <Video className="size-5" />}
        </span>
        <div className="min-w-0">
          <h2 id={titleId} className="truncate font-semibold">
            {title}
          </h2>
          <p id={`${titleId}-desc`} className="text-sm text-slate-600">
            {call.fromUsername} vous appelle… <span className="text-slate-400">({remaining} s)</span>
          </p>
        </div>
      </div>
      <div className="mt-4 grid grid-cols-2 gap-2">
        <Button variant="destructive" onClick={onReject}>
          <PhoneOff aria-hidden /> Refuser
        </Button>
        <Button className="bg-emerald-600 hover:bg-emerald-700" onClick={onAccept}>
          {audioOnly ? <Phone aria-hidden /> : <Video aria-hidden />} Accepter
        </Button>
      </div>
      {sound && settings ? (
        <audio
          ref={audio}
          data-testid="call-ringtone"
          src={`/api/notifications/ringtone.php?tone=${settings.ringtone}&call=${call.callType}`}
          loop
          preload="auto"
          className="hidden"
        />
      ) : null}
    </div>
  );
}
