import { formatSeconds, type TRingInfo } from '@securering/contract';
import { ChevronDown, Copy, Info, Lock, LogOut, Settings, Timer } from 'lucide-react';
import { lazy, useId, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { LazyDialogButton } from '@/components/ui/lazy-dialog-button';
import { useCopyToClipboard } from '@/components/ui/use-copy-to-clipboard';
import { setRingLoginNotice } from '@/lib/auth/ring-login-notice';
import { announceRingLogout } from '@/lib/auth/ring-logout-channel';
import { useRingSession } from '@/lib/auth/ring-session';
import { CIPHER_LABELS, ENCRYPTION_LABELS, PROTECTION_LABELS } from '@/lib/ring-labels';
import { cn } from '@/lib/utils';
import { realtimeText } from '../chat/chat-header';
import { useChat } from '../chat/chat-provider';
import { isWebPushWanted } from '../chat/web-push-flag';
import { E2eeStatus } from '../e2ee/e2ee-status';
import { SecurityDialogButton } from './room-aside';

// Opened by the owner or a Ring admin now and then: loaded on the first « Paramètres ».
const RingSettingsDialog = lazy(() =>
  import('./ring-settings-dialog').then((m) => ({ default: m.RingSettingsDialog })),
);

/**
 * The room's header: Ring name with its real encryption level, Ring id, the member's invite code,
 * settings, logout, and the status row (realtime, end-to-end encryption, ephemeral, protection).
 */
export function RoomHeader({ info }: { info: TRingInfo }) {
  const { ring, user } = info;
  const session = useRingSession();
  const { realtime } = useChat();
  const copyCode = useCopyToClipboard({ title: 'Code copié', duration: 2000 }, { title: 'Copie impossible' });
  const canManage = user.role === 'owner' || user.role === 'admin';
  // Phones: the Ring id, the statuses in full and the actions behind « Détails » (issue 28).
  const [detailsOpen, setDetailsOpen] = useState(false);
  const detailsId = useId();
  const summary = `Temps réel\u202f: ${realtimeText(realtime, null)}, messages éphémères\u202f: ${
    ring.ephemeral ? 'activés' : 'désactivés'
  }, protection anti-capture\u202f: ${PROTECTION_LABELS[ring.screenProtection.level].toLowerCase()}`;
  // « Déconnexion » closes this browser's DM and call popups too, with their keys (issue 28).
  const handleLogout = () => {
    setRingLoginNotice({ kind: 'logged_out', email: user.email ?? null });
    announceRingLogout();
    // Opted in to Web Push here: the server and the browser forget this device's subscription first.
    const forgetPush = isWebPushWanted(user.id)
      ? import('../chat/web-push')
          .then((m) => m.disableWebPush(user, ring.id, { callServer: true }))
          .catch(() => undefined)
      : Promise.resolve();
    void forgetPush.then(() => session.logout());
  };

  return (
    <header className="border-b border-slate-200 bg-white" data-testid="room-header">
      {/* One wrapping row: on phones (below `lg`) the name, the encryption status, « Détails » and
          « Déconnexion » take two short lines; the Ring id, the other statuses and the actions open
          with « Détails » (issue 28). Each control exists once, placed by `order`. */}
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 gap-y-2 px-4 py-2 lg:py-3">
        <div className="order-1 min-w-0 flex-1">
          <div className="flex min-w-0 items-center gap-2">
            <h1 className="truncate text-lg font-bold lg:text-xl">{ring.name}</h1>
            <Badge
              variant="success"
              className="shrink-0"
              title={`Niveau de chiffrement\u202f: ${ENCRYPTION_LABELS[ring.encryptionLevel]}`}
            >
              <Lock className="size-3" aria-hidden /> {CIPHER_LABELS[ring.encryptionLevel]}
            </Badge>
          </div>
          <p className={cn('truncate text-xs text-slate-500 lg:block', detailsOpen ? 'block' : 'hidden')}>
            Ring <span className="font-mono">{ring.id}</span>
          </p>
        </div>
        <div
          id={detailsId}
          className={cn(
            'order-4 w-full flex-wrap items-center gap-2 lg:order-2 lg:flex lg:w-auto',
            detailsOpen ? 'flex' : 'hidden',
          )}
        >
          <span
            className="flex items-center gap-1 rounded-md bg-slate-100 px-2 py-1 text-sm"
            title="Votre code d’invitation personnel"
          >
            <span className="flex flex-col leading-tight">
              <span className="text-slate-500">
                Mon code&#8239;: <span className="font-mono text-slate-900">{user.inviteCode}</span>
              </span>
              <span className="text-xs text-slate-500 lg:sr-only">Votre code d’invitation personnel</span>
            </span>
            <Button
              variant="ghost"
              size="sm"
              aria-label="Copier mon code d’invitation"
              onClick={() => void copyCode(user.inviteCode)}
            >
              <Copy aria-hidden />
            </Button>
          </span>
          <SecurityDialogButton />
          {canManage ? (
            <LazyDialogButton variant="outline" size="sm" dialog={RingSettingsDialog} dialogProps={{ info }}>
              <Settings aria-hidden /> Paramètres
            </LazyDialogButton>
          ) : null}
        </div>
        <Button variant="outline" size="sm" className="order-2 lg:order-3" onClick={handleLogout}>
          <LogOut aria-hidden /> <span className="sr-only sm:not-sr-only">Déconnexion</span>
        </Button>
        <div
          className="order-3 flex w-full flex-wrap items-center gap-2 text-xs lg:order-4"
          aria-label="État du Ring"
          data-testid="room-status"
        >
          <E2eeStatus />
          <StatusChip
            label="Temps réel"
            value={realtimeText(realtime, null)}
            on={realtime.status === 'connected'}
            className={cn('lg:order-first lg:inline-flex', detailsOpen ? 'inline-flex' : 'hidden')}
          />
          <StatusChip
            label="Messages éphémères"
            value={ring.ephemeral ? `activés (${formatSeconds(ring.autoDestroyDelay)})` : 'désactivés'}
            on={ring.ephemeral}
            icon={Timer}
            className={cn('lg:inline-flex', detailsOpen ? 'inline-flex' : 'hidden')}
          />
          <StatusChip
            label="Protection anti-capture"
            value={PROTECTION_LABELS[ring.screenProtection.level].toLowerCase()}
            on={ring.screenProtection.level !== 'disabled'}
            className={cn('lg:inline-flex', detailsOpen ? 'inline-flex' : 'hidden')}
          />
          {/* Phones: the other three statuses as dots, and « Détails » to read them in full. */}
          <button
            type="button"
            className="inline-flex items-center gap-1 rounded-full border border-slate-200 bg-white px-2 py-1 text-slate-700 hover:bg-slate-50 pointer-coarse:min-h-9 lg:hidden"
            aria-expanded={detailsOpen}
            aria-controls={detailsId}
            data-testid="room-details-toggle"
            title={detailsOpen ? undefined : summary}
            onClick={() => setDetailsOpen((open) => !open)}
          >
            {/* One dot for the three other statuses: green when realtime is connected. */}
            {detailsOpen ? null : <Dot on={realtime.status === 'connected'} />}
            <span className="font-medium">Détails</span>
            <ChevronDown className={cn('size-3', detailsOpen && 'rotate-180')} aria-hidden />
          </button>
        </div>
      </div>
    </header>
  );
}

function Dot({ on }: { on: boolean }) {
  return <span className={cn('size-2 rounded-full', on ? 'bg-emerald-500' : 'bg-slate-300')} aria-hidden />;
}

function StatusChip({
  label,
  value,
  on,
  icon: Icon = Info,
  className,
}: {
  label: string;
  value: string;
  on: boolean;
  icon?: typeof Info;
  className?: string;
}) {
  return (
    <span
      className={cn(
        'inline-flex items-center gap-1.5 rounded-full border border-slate-200 bg-white px-2.5 py-1',
        className,
      )}
    >
      <span className={cn('size-2 rounded-full', on ? 'bg-emerald-500' : 'bg-slate-300')} aria-hidden />
      <Icon className="size-3 text-slate-500" aria-hidden />
      <span className="text-slate-500">{label} :</span> <span className="font-medium">{value}</span>
    </span>
  );
}
