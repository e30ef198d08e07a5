import type { TRingInfo } from '@securering/contract';
import { Copy, Info, Lock, LogOut, Settings, Timer } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Dialog, DialogTrigger } from '@/components/ui/dialog';
import { useCopyToClipboard } from '@/components/ui/use-copy-to-clipboard';
import { useRingSession } from '@/lib/auth/ring-session';
import { CIPHER_LABELS, ENCRYPTION_LABELS, PROTECTION_LABELS } from '@/lib/ring-labels';
import { cn } from '@/lib/utils';
import { realtimeText } from '../chat/chat-header';
import { useChat } from '../chat/chat-provider';
import { E2eeStatus } from '../e2ee/e2ee-status';
import { RingSettingsDialog } from './ring-settings-dialog';
import { SecurityDialog } from './room-aside';

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

  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h1 className="truncate text-xl font-bold">{ring.name}</h1>
            <Badge
              variant="success"
              title={`Niveau de chiffrement\u202f: ${ENCRYPTION_LABELS[ring.encryptionLevel]}`}
            >
              <Lock className="size-3" aria-hidden /> {CIPHER_LABELS[ring.encryptionLevel]}
            </Badge>
          </div>
          <p className="truncate text-xs text-slate-500">
            Ring <span className="font-mono">{ring.id}</span>
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <span className="flex items-center gap-1 rounded-md bg-slate-100 px-2 py-1 text-sm">
            <span className="text-slate-500">Mon code&#8239;:</span>
            <span className="font-mono">{user.inviteCode}</span>
            <Button
              variant="ghost"
              size="sm"
              aria-label="Copier mon code d’invitation"
              onClick={() => void copyCode(user.inviteCode)}
            >
              <Copy aria-hidden />
            </Button>
          </span>
          <SecurityDialog />
          {canManage ? (
            <Dialog>
              <DialogTrigger asChild>
                <Button variant="outline" size="sm">
                  <Settings aria-hidden /> Paramètres
                </Button>
              </DialogTrigger>
              <RingSettingsDialog info={info} />
            </Dialog>
          ) : null}
          <Button variant="outline" size="sm" onClick={() => void session.logout()}>
            <LogOut aria-hidden /> Déconnexion
          </Button>
        </div>
      </div>
      <div className="mx-auto flex max-w-7xl flex-wrap gap-2 px-4 pb-3 text-xs" aria-label="État du Ring">
        <StatusChip
          label="Temps réel"
          value={realtimeText(realtime, null)}
          on={realtime.status === 'connected'}
        />
        <E2eeStatus />
        <StatusChip
          label="Messages éphémères"
          value={ring.ephemeral ? `activés (${ring.autoDestroyDelay} s)` : 'désactivés'}
          on={ring.ephemeral}
          icon={Timer}
        />
        <StatusChip
          label="Protection anti-capture"
          value={PROTECTION_LABELS[ring.screenProtection.level].toLowerCase()}
          on={ring.screenProtection.level !== 'disabled'}
        />
      </div>
    </header>
  );
}

function StatusChip({
  label,
  value,
  on,
  icon: Icon = Info,
}: {
  label: string;
  value: string;
  on: boolean;
  icon?: typeof Info;
}) {
  return (
    <span className="inline-flex items-center gap-1.5 rounded-full border border-slate-200 bg-white px-2.5 py-1">
      <span className={cn('size-2 rounded-full', on ? 'bg-emerald-500' : 'bg-slate-300')} aria-hidden />
      <Icon className="size-3 text-slate-500" aria-hidden />
      <span className="text-slate-500">{label} :</span> <span className="font-medium">{value}</span>
    </span>
  );
}
