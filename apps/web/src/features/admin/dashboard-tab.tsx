import { formatEuros, type TAdminStats } from '@securering/contract';
import { Activity, CreditCard, Gauge, ShieldCheck } from 'lucide-react';
import type { ReactNode } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { BarChart } from '@/components/ui/bar-chart';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { formatDateTimeShort } from '@/lib/dates';
import { useAdminStats } from './admin-api';
import {
  LEVEL_LABELS,
  dayLabel,
  diskFreeSummary,
  formatGo,
  formatMo,
  formatMs,
  formatUptime,
  monthLabel,
} from './dashboard-format';

/** "Dashboard" (always visible): real figures measured by the server (spec 3 §2.3). */
export function DashboardTab() {
  const stats = useAdminStats();
  if (stats.isPending) return <Spinner label="Chargement du tableau de bord…" />;
  if (stats.isError) {
    return <LoadError onRetry={() => void stats.refetch()} />;
  }
  return <Dashboard stats={stats.data} />;
}

function Dashboard({ stats }: { stats: TAdminStats }) {
  const { responseTime } = stats;
  const disk = diskFreeSummary(stats.disk);
  return (
    <div className="space-y-6">
      {stats.paymentTestMode ? (
        <Alert variant="error" title="Mode paiement de test actif (PAYMENT_TEST_MODE)">
          Les abonnements peuvent être activés sans paiement. Redémarrez le serveur sans PAYMENT_TEST_MODE
          avant de l’ouvrir au public.
        </Alert>
      ) : null}
      {disk.alert ? (
        <Alert variant={disk.tone === 'danger' ? 'error' : 'warning'} title="Espace disque">
          {disk.alert}
        </Alert>
      ) : null}
      <div className="grid gap-4 lg:grid-cols-3">
        <Panel title="Performance" icon={<Gauge aria-hidden className="size-5 text-primary" />}>
          <Figure
            label="Disponibilité"
            value={formatUptime(stats.uptime)}
            detail="depuis le dernier démarrage"
          />
          <Figure
            label="Temps de réponse"
            value={
              responseTime.samples > 0
                ? `${formatMs(responseTime.p50)} · p95 ${formatMs(responseTime.p95)}`
                : '—'
            }
            detail={
              responseTime.samples > 0
                ? `médiane et 95e centile sur ${responseTime.samples} requêtes`
                : 'aucune requête mesurée'
            }
          />
          <Figure
            label="Erreurs (24 h)"
            value={String(stats.errors24h)}
            tone={stats.errors24h > 0 ? 'danger' : 'ok'}
            detail="entrées error et critical du journal"
          />
          <Figure
            label="Stockage utilisé"
            value={formatGo(stats.storageUsed)}
            detail={`${stats.storageUsed < 1024 ** 3 ? `soit ${formatMo(stats.storageUsed)} · ` : ''}base, fichiers des Rings, envois et sauvegardes`}
          />
          <Figure label="Espace disque libre" value={disk.value} tone={disk.tone} detail={disk.detail} />
        </Panel>

        <Panel title="Sécurité" icon={<ShieldCheck aria-hidden className="size-5 text-primary" />}>
          <Figure
            label="Connexions échouées (24 h)"
            value={String(stats.failedLogins24h)}
            tone={stats.failedLogins24h > 0 ? 'warning' : 'ok'}
          />
          <div className="flex items-center justify-between gap-2 py-2">
            <span className="text-sm text-slate-600">SSL / HTTPS</span>
            {stats.https ? <Badge variant="success">Oui</Badge> : <Badge variant="warning">Non</Badge>}
          </div>
          <Figure
            label="Dernière sauvegarde"
            value={stats.lastBackupAt ? formatDateTimeShort(stats.lastBackupAt) : 'Aucune sauvegarde'}
            tone={stats.lastBackupAt ? 'ok' : 'warning'}
          />
        </Panel>

        <Panel title="Paiements" icon={<CreditCard aria-hidden className="size-5 text-primary" />}>
          <Figure
            label="Revenu du mois"
            value={formatEuros(stats.monthlyRevenue)}
            detail="paiements encaissés depuis le 1er du mois"
          />
          <Figure label="Transactions ce mois-ci" value={String(stats.transactionsThisMonth)} />
          <Figure label="Revenu total" value={formatEuros(stats.totalRevenue)} />
        </Panel>
      </div>

      <div className="grid gap-4 lg:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle>Revenu par mois</CardTitle>
          </CardHeader>
          <CardContent>
            <BarChart
              title="Revenu par mois"
              data={stats.revenueByMonth.map((m) => ({ label: monthLabel(m.month), value: m.amount }))}
              valueLabel={(v) => formatEuros(v)}
              labelHeader="Mois"
              valueHeader="Revenu"
            />
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Nouveaux clients par jour</CardTitle>
          </CardHeader>
          <CardContent>
            <BarChart
              title="Nouveaux clients par jour"
              data={stats.newCustomersByDay.map((d) => ({ label: dayLabel(d.date), value: d.count }))}
              labelHeader="Jour"
              valueHeader="Nouveaux clients"
            />
          </CardContent>
        </Card>
      </div>

      <Panel title="Activité récente" icon={<Activity aria-hidden className="size-5 text-primary" />}>
        {stats.recentActivity.length === 0 ? (
          <p className="text-sm text-slate-500">Aucune activité enregistrée.</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {stats.recentActivity.map((entry) => {
              const level = LEVEL_LABELS[entry.level] ?? { label: entry.level, variant: 'neutral' as const };
              return (
                <li key={entry.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2 text-sm">
                  <time dateTime={entry.created_at} className="w-32 shrink-0 tabular-nums text-slate-500">
                    {formatDateTimeShort(entry.created_at)}
                  </time>
                  <Badge variant={level.variant}>{level.label}</Badge>
                  <span className="text-xs uppercase tracking-wide text-slate-400">{entry.category}</span>
                  <span className="min-w-48 flex-1 break-words text-slate-800">{entry.message}</span>
                </li>
              );
            })}
          </ul>
        )}
      </Panel>
    </div>
  );
}

function Panel({ title, icon, children }: { title: string; icon: ReactNode; children: ReactNode }) {
  return (
    <Card>
      <CardHeader className="flex-row items-center gap-2">
        {icon}
        <CardTitle>{title}</CardTitle>
      </CardHeader>
      <CardContent className="divide-y divide-slate-100">{children}</CardContent>
    </Card>
  );
}

const TONES = { ok: 'text-slate-900', warning: 'text-amber-700', danger: 'text-red-700' } as const;

function Figure({
  label,
  value,
  detail,
  tone = 'ok',
}: {
  label: string;
  value: string;
  detail?: string;
  tone?: keyof typeof TONES;
}) {
  return (
    <div className="py-2">
      <div className="flex items-baseline justify-between gap-2">
        <span className="text-sm text-slate-600">{label}</span>
        <span className={`text-right font-semibold tabular-nums ${TONES[tone]}`}>{value}</span>
      </div>
      {detail ? <p className="text-xs text-slate-500">{detail}</p> : null}
    </div>
  );
}
