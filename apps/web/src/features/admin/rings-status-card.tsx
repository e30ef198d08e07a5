import { REALTIME_MESSAGES } from '@securering/contract';
import { RefreshCw, RotateCcw } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Textarea } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { useToast } from '@/components/ui/toast';
import { useAdminSession } from '@/lib/auth/admin-session';
import { formatDateTimeShort } from '@/lib/dates';
import { formatUptime } from './dashboard-format';
import { useRealtimeStatus, useRestartRealtime } from './rings-realtime-api';
import { ApiError } from '@/lib/api-client';

const seconds = (ms: number) =>
  `${new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 }).format(ms / 1000)} s`;

/** The realtime service's status, with the restart for super admins (spec 3 §2.11, §6). */
export function RingsStatusCard() {
  const session = useAdminSession();
  const isSuper = session.admin?.role === 'super_admin';
  const status = useRealtimeStatus();
  const [confirming, setConfirming] = useState(false);

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-2">
        <div className="space-y-1.5">
          <CardTitle>Service temps réel</CardTitle>
          <CardDescription>État du service WebSocket, actualisé toutes les 10 secondes.</CardDescription>
        </div>
        <div className="flex gap-2">
          <Button
            variant="ghost"
            size="sm"
            onClick={() => void status.refetch()}
            disabled={status.isFetching}
          >
            <RefreshCw aria-hidden className={status.isFetching ? 'animate-spin' : undefined} /> Actualiser
          </Button>
          {isSuper ? (
            <Button variant="destructive" size="sm" onClick={() => setConfirming(true)}>
              <RotateCcw aria-hidden /> Redémarrer
            </Button>
          ) : null}
        </div>
      </CardHeader>
      <CardContent>
        {status.isPending ? (
          <Spinner label="Interrogation du service…" />
        ) : status.isError ? (
          <Alert variant="error" title={REALTIME_MESSAGES.unreachable}>
            {status.error instanceof ApiError && status.error.kind !== 'network'
              ? status.error.message
              : null}
          </Alert>
        ) : (
          <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-4">
            <Item label="État">
              <Badge variant="success">En ligne</Badge>
            </Item>
            <Item label="Connexions actives">{status.data.sockets}</Item>
            <Item label="Rings connectés">{status.data.ringRoomsCount}</Item>
            <Item label="Disponibilité">{formatUptime(status.data.uptime_sec)}</Item>
            <Item label="Battement (heartbeat)">{seconds(status.data.heartbeat_ms)}</Item>
            <Item label="Délai de grâce">{seconds(status.data.grace_ms)}</Item>
            <Item label="Configuration lue le">
              {status.data.last_config_fetch_ms
                ? formatDateTimeShort(new Date(status.data.last_config_fetch_ms).toISOString())
                : '—'}
            </Item>
            <Item label="Processus (PID)">{status.data.pid}</Item>
          </dl>
        )}
      </CardContent>
      {isSuper ? <RestartDialog open={confirming} onOpenChange={setConfirming} /> : null}
    </Card>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="font-semibold tabular-nums">{children}</dd>
    </div>
  );
}

function RestartDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const restart = useRestartRealtime();
  const notify = useToast();
  const [reason, setReason] = useState('');

  const confirm = () => {
    restart.mutate(reason.trim(), {
      onSuccess: (message) => {
        notify({ title: message, variant: 'success' });
        setReason('');
        onOpenChange(false);
      },
      onError: (error) => {
        if (error instanceof ApiError && error.kind === 'network') {
          notify({ title: REALTIME_MESSAGES.network, variant: 'error' });
        } else {
          notify({ title: REALTIME_MESSAGES.restartFailed, description: error.message, variant: 'error' });
        }
      },
    });
  };

  return (
    <Dialog open={open} onOpenChange={(next) => !restart.isPending && onOpenChange(next)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Redémarrer le service temps réel&#8239;?</DialogTitle>
          <DialogDescription>
            Toutes les connexions WebSocket seront fermées sur chaque instance. Les membres connectés se
            reconnecteront automatiquement en quelques secondes&#8239;; les nouveaux réglages (battement)
            s’appliqueront.
          </DialogDescription>
        </DialogHeader>
        <Field id="realtime-restart-reason" label="Motif (facultatif, consigné dans le journal)">
          <Textarea
            id="realtime-restart-reason"
            rows={2}
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
        </Field>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={restart.isPending}>
            Annuler
          </Button>
          <Button variant="destructive" onClick={confirm} disabled={restart.isPending}>
            <RotateCcw aria-hidden /> {restart.isPending ? 'Redémarrage…' : 'Redémarrer'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
