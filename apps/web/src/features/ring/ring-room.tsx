import {
  Copy,
  FolderOpen,
  Info,
  Lock,
  LogOut,
  MessagesSquare,
  Settings,
  ShieldCheck,
  Timer,
} from 'lucide-react';
import { useCallback } from 'react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Dialog, DialogTrigger } from '@/components/ui/dialog';
import { FullPageSpinner } from '@/components/ui/spinner';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useToast } from '@/components/ui/toast';
import { useCopyToClipboard } from '@/components/ui/use-copy-to-clipboard';
import { useRingSession } from '@/lib/auth/ring-session';
import type { ConnectionStatus } from '@/lib/realtime';
import { CIPHER_LABELS, PROTECTION_LABELS } from '@/lib/ring-labels';
import { cn } from '@/lib/utils';
import { useRingInfo, useRingLiveUpdates } from './ring-info-api';
import { DownloadsCard, RingFooter, SecurityDialog } from './room-aside';
import { RingSettingsDialog } from './ring-settings-dialog';
import { RingUsersPanel } from './ring-users-panel';
import { StoragePanel } from './storage-panel';

/** The Ring room's frame: header, the chat and files tabs, the users panel, downloads, footer. */
export function RingRoom() {
  const info = useRingInfo();
  const session = useRingSession();
  const notify = useToast();
  const copyCode = useCopyToClipboard({ title: 'Code copié', duration: 2000 }, { title: 'Copie impossible' });
  const onSettingsChanged = useCallback(
    () => notify({ title: 'Paramètres du Ring mis à jour', variant: 'info', duration: 3000 }),
    [notify],
  );
  const status = useRingLiveUpdates(info.data?.ring.id, onSettingsChanged);

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
  const { ring, user } = info.data;
  const canManage = user.role === 'owner' || user.role === 'admin';

  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <div className="min-w-0">
            <div className="flex flex-wrap items-center gap-2">
              <h1 className="truncate text-xl font-bold">{ring.name}</h1>
              <Badge variant="success">
                <Lock className="size-3" aria-hidden /> {CIPHER_LABELS[ring.encryptionLevel]}
              </Badge>
            </div>
            <p className="truncate text-xs text-slate-500">
              Ring <span className="font-mono">{ring.id}</span>
            </p>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <span className="flex items-center gap-1 rounded-md bg-slate-100 px-2 py-1 text-sm">
              <span className="text-slate-500">Mon code :</span>
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
                <RingSettingsDialog info={info.data} />
              </Dialog>
            ) : null}
            <Button variant="outline" size="sm" onClick={() => void session.logout()}>
              <LogOut aria-hidden /> Déconnexion
            </Button>
          </div>
        </div>
        <div className="mx-auto flex max-w-7xl flex-wrap gap-2 px-4 pb-3 text-xs" aria-label="État du Ring">
          <StatusChip label="Temps réel" value={STATUS_LABELS[status]} on={status === 'connected'} />
          <StatusChip label="Chiffrement de bout en bout" value="actif" on icon={ShieldCheck} />
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

      <div className="mx-auto grid w-full max-w-7xl flex-1 gap-6 px-4 py-6 lg:grid-cols-[1fr_20rem]">
        <Tabs defaultValue="room">
          <TabsList>
            <TabsTrigger value="room">
              <MessagesSquare aria-hidden /> Salon du ring
            </TabsTrigger>
            <TabsTrigger value="files">
              <FolderOpen aria-hidden /> Fichiers du ring
            </TabsTrigger>
          </TabsList>
          <TabsContent value="room">
            <section
              aria-label={`Salon • ${ring.name}`}
              className="rounded-xl border border-slate-200 bg-white"
            >
              <div className="border-b border-slate-100 px-4 py-3">
                <h2 className="font-semibold">Salon • {ring.name}</h2>
              </div>
              <p className="flex items-center gap-2 px-4 py-3 text-xs text-slate-500">
                <Lock className="size-3" aria-hidden /> Les messages sont chiffrés de bout en bout : seuls les
                membres du Ring peuvent les lire.
              </p>
            </section>
          </TabsContent>
          <TabsContent value="files">
            <StoragePanel storage={ring.storage} bytes={ring.storageBytes} />
          </TabsContent>
        </Tabs>
        <aside className="space-y-6">
          <RingUsersPanel users={info.data.users} />
          <DownloadsCard />
        </aside>
      </div>
      <RingFooter />
    </div>
  );
}

const STATUS_LABELS: Record<ConnectionStatus, string> = {
  connecting: 'connexion…',
  connected: 'connecté',
  disconnected: 'déconnecté',
};

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
