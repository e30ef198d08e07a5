import { MUTE_PRESETS_MINUTES, formatSeconds } from '@securering/contract';
import {
  ArrowLeft,
  Bell,
  BellOff,
  BellRing,
  Lock,
  Radio,
  Search,
  Settings2,
  ShieldCheck,
  Timer,
} from 'lucide-react';
import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { LazyDialogButton } from '@/components/ui/lazy-dialog-button';
import { useToast } from '@/components/ui/toast';
import { CIPHER_LABELS, ENCRYPTION_LABELS, PROTECTION_LABELS } from '@/lib/ring-labels';
import { cn } from '@/lib/utils';
import { E2eeStatus } from '../e2ee/e2ee-status';
import { useChat, useSecondTicker } from './chat-provider';
import type { ChatNotifications } from './use-notifications';
import type { RealtimeMode } from './use-realtime-fallback';

const NotificationPreferencesDialog = lazy(() =>
  import('./notification-preferences-dialog').then((m) => ({ default: m.NotificationPreferencesDialog })),
);

/** « Rechercher » (issue 29): loaded on first use. */
const SearchPanel = lazy(() => import('./search-panel').then((m) => ({ default: m.SearchPanel })));

const presetLabel = (minutes: number) => (minutes < 60 ? `${minutes} min` : `${minutes / 60} h`);

/** The realtime line of the status dots: socket, or polling with its next tick. */
export function realtimeText(mode: RealtimeMode, now: number | null): string {
  if (mode.status === 'connected') return 'connecté';
  if (mode.polling) {
    if (now === null || mode.nextPollAt === null) return 'relève périodique';
    const seconds = Math.max(0, Math.ceil((mode.nextPollAt - now) / 1000));
    return `relève périodique (prochaine dans ${seconds} s)`;
  }
  return mode.status === 'connecting' ? 'connexion…' : 'déconnecté';
}

/**
 * The chat screen's header (spec 2 §2): title and the mute button with its presets; in a popup also
 * the back button, the Ring's security level and the status dots — websocket, end-to-end
 * encryption, ephemeral messages, anti-capture protection — which the room shows in its own header,
 * right above the chat, instead.
 */
export function ChatHeader({
  conversationId,
  title,
  popup,
  onBack,
  debugNotifications,
}: {
  conversationId: string;
  title: string;
  popup: boolean;
  onBack?: () => void;
  debugNotifications: boolean;
}) {
  const chat = useChat();
  const { ring } = chat.info;
  const now = useSecondTicker(chat.realtime.polling);
  return (
    <div className="space-y-2 border-b border-slate-100 px-3 py-3 sm:px-4">
      <div className="flex flex-wrap items-center gap-2">
        {popup || onBack ? (
          <Button variant="ghost" size="icon" className="size-8" aria-label="Retour" onClick={onBack}>
            <ArrowLeft aria-hidden />
          </Button>
        ) : null}
        <h2 className="min-w-0 flex-1 font-semibold [overflow-wrap:anywhere]">{title}</h2>
        {popup ? (
          // In the room, the room header above carries the badge and the status dots.
          <Badge
            variant="success"
            title={`Niveau de chiffrement\u202f: ${ENCRYPTION_LABELS[ring.encryptionLevel]}`}
          >
            <Lock className="size-3" aria-hidden /> {CIPHER_LABELS[ring.encryptionLevel]}
          </Badge>
        ) : null}
        <LazyDialogButton
          dialog={SearchPanel}
          dialogProps={{ conversationId }}
          variant="outline"
          size="sm"
          title="Rechercher dans la conversation"
        >
          <Search aria-hidden /> <span className="max-sm:sr-only">Rechercher</span>
        </LazyDialogButton>
        <MuteMenu notifications={chat.notifications} />
        {debugNotifications ? <TestNotificationButton /> : null}
      </div>
      {popup ? (
        <div className="flex flex-wrap gap-1.5 text-xs" aria-label="État de la conversation">
          <Dot
            on={chat.realtime.status === 'connected'}
            warn={chat.realtime.polling}
            icon={Radio}
            label="WebSocket"
            value={realtimeText(chat.realtime, now)}
          />
          <E2eeStatus />
          <Dot
            on={ring.ephemeral}
            icon={Timer}
            label="Messages éphémères"
            value={ring.ephemeral ? `activés (${formatSeconds(ring.autoDestroyDelay)})` : 'désactivés'}
          />
          <Dot
            on={ring.screenProtection.level !== 'disabled'}
            icon={ShieldCheck}
            label="Protection anti-capture"
            value={PROTECTION_LABELS[ring.screenProtection.level].toLowerCase()}
          />
        </div>
      ) : chat.realtime.polling ? (
        <p className="text-xs text-amber-700" role="status">
          Connexion temps réel indisponible&#8239;: {realtimeText(chat.realtime, now)}.
        </p>
      ) : null}
    </div>
  );
}

function Dot({
  on,
  warn = false,
  icon: Icon,
  label,
  value,
}: {
  on: boolean;
  warn?: boolean;
  icon: typeof Radio;
  label: string;
  value: string;
}) {
  return (
    <span className="inline-flex items-center gap-1.5 rounded-full border border-slate-200 bg-white px-2.5 py-1">
      <span
        className={cn('size-2 rounded-full', on ? 'bg-emerald-500' : warn ? 'bg-amber-400' : 'bg-slate-300')}
        aria-hidden
      />
      <Icon className="size-3 text-slate-500" aria-hidden />
      <span className="text-slate-500">{label} :</span> <span className="font-medium">{value}</span>
    </span>
  );
}

/** Mute / unmute, with the 15, 30, 60 and 240 minute presets, saved in the notification settings. */
function MuteMenu({ notifications }: { notifications: ChatNotifications }) {
  const [open, setOpen] = useState(false);
  const [preferencesOpen, setPreferencesOpen] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (
        event instanceof KeyboardEvent
          ? event.key === 'Escape'
          : !panel.current?.contains(event.target as Node)
      )
        setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  const preferences = preferencesOpen ? (
    <Suspense fallback={null}>
      <NotificationPreferencesDialog open onOpenChange={setPreferencesOpen} />
    </Suspense>
  ) : null;
  if (notifications.muted) {
    const until = notifications.settings.muteUntil;
    // The preferences stay open if the notifications are muted meanwhile (from another device).
    return (
      <>
        <Button
          variant="outline"
          size="sm"
          disabled={notifications.saving}
          onClick={notifications.unmute}
          title={
            notifications.settings.muteAll || until === null
              ? 'Notifications coupées'
              : `Notifications coupées jusqu’à ${new Date(until).toLocaleTimeString('fr-FR', { hour: '2-digit', minute: '2-digit' })}`
          }
        >
          <BellOff aria-hidden /> <span className="max-sm:sr-only">Réactiver les notifications</span>
        </Button>
        {preferences}
      </>
    );
  }
  return (
    <div className="relative" ref={panel}>
      <Button
        variant="outline"
        size="sm"
        aria-expanded={open}
        aria-haspopup="true"
        disabled={notifications.saving}
        onClick={() => setOpen((v) => !v)}
      >
        <Bell aria-hidden /> <span className="max-sm:sr-only">Couper les notifications</span>
      </Button>
      {open ? (
        <div
          role="group"
          aria-label="Couper les notifications"
          className="absolute right-0 z-20 mt-1 w-60 space-y-1 rounded-md border border-slate-200 bg-white p-2 shadow-lg"
        >
          {MUTE_PRESETS_MINUTES.map((minutes) => (
            <Button
              key={minutes}
              variant="ghost"
              size="sm"
              className="w-full justify-start"
              onClick={() => {
                notifications.muteFor(minutes);
                setOpen(false);
              }}
            >
              Pendant {presetLabel(minutes)}
            </Button>
          ))}
          <Button
            variant="ghost"
            size="sm"
            className="w-full justify-start"
            onClick={() => {
              notifications.muteAll();
              setOpen(false);
            }}
          >
            Jusqu’à réactivation
          </Button>
          <Button
            variant="ghost"
            size="sm"
            className="w-full justify-start"
            onClick={() => {
              setOpen(false);
              setPreferencesOpen(true);
            }}
          >
            <Settings2 aria-hidden /> Préférences de notification…
          </Button>
          {notifications.permission === 'default' ? (
            <Button
              variant="secondary"
              size="sm"
              className="h-auto w-full justify-start whitespace-normal py-1.5 text-left"
              onClick={() => void notifications.requestDesktop()}
            >
              <BellRing aria-hidden /> Activer les notifications de bureau
            </Button>
          ) : null}
        </div>
      ) : null}
      {preferences}
    </div>
  );
}

/** `debugNotifs=1` (spec 2 §2): sends a test notice through the real notice path. */
function TestNotificationButton() {
  const chat = useChat();
  const notify = useToast();
  return (
    <Button
      variant="secondary"
      size="sm"
      onClick={() => {
        const shown = chat.notifications.present(
          {
            conversationId: 'test',
            messageId: `test-${Date.now()}`,
            fromUsername: 'SecureRing',
            title: 'Notification de test',
            messageType: 'text',
            isEphemeral: false,
            text: 'Ceci est une notification de test\u202f: les vraies notifications s’afficheront ainsi.',
            own: false,
            inView: false,
          },
          { ignoreView: true },
        );
        if (!shown)
          notify({
            title: 'Notifications coupées',
            description: 'Réactivez-les pour tester.',
            variant: 'info',
          });
      }}
    >
      Tester les notifications
    </Button>
  );
}
