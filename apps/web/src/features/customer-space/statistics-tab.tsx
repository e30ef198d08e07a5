import { ZRingStatsResponse, formatCount, type TRingStats } from '@securering/contract';
import { useQuery } from '@tanstack/react-query';
import { format, parseISO } from 'date-fns';
import { fr } from 'date-fns/locale';
import { Download } from 'lucide-react';
import { useId, useState, type KeyboardEvent } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { BarChart } from '@/components/ui/bar-chart';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { apiRequest } from '@/lib/api-client';
import { downloadCsv, toCsv } from '@/lib/csv';
import { formatGo } from '@/lib/bytes';
import { cn } from '@/lib/utils';

/** The periods the server accepts (GET /api/customer/ring-stats.php?days=). */
const PERIODS = [7, 30, 90] as const;
type Period = (typeof PERIODS)[number];
const DEFAULT_PERIOD: Period = 30;

/** 'YYYY-MM-DD' (a UTC day from the server) read as that calendar day, whatever the local zone. */
const dayOf = (date: string) => parseISO(date);
const shortDay = (date: string) => format(dayOf(date), 'dd/MM', { locale: fr });
const fullDay = (date: string) => format(dayOf(date), 'dd/MM/yyyy', { locale: fr });

type Series = TRingStats['messagesPerDay'];

interface SeriesView {
  key: 'messages' | 'membres-actifs' | 'appels';
  title: string;
  column: string;
  tableHeader: string;
  exportLabel: string;
  series: Series;
  /** What the total means: a sum of days, or distinct members over the period. */
  totalLabel: string;
  total: number;
}

function seriesViews(stats: TRingStats): SeriesView[] {
  return [
    {
      key: 'messages',
      title: 'Messages par jour',
      column: 'Messages',
      tableHeader: 'Nombre de messages',
      exportLabel: 'Exporter les messages (CSV)',
      series: stats.messagesPerDay,
      totalLabel: 'Total',
      total: stats.totals.messages,
    },
    {
      key: 'membres-actifs',
      title: 'Membres actifs par jour',
      column: 'Membres actifs',
      tableHeader: 'Nombre de membres actifs',
      exportLabel: 'Exporter les membres actifs (CSV)',
      series: stats.activeMembersPerDay,
      totalLabel: 'Membres distincts',
      total: stats.totals.activeMembers,
    },
    {
      key: 'appels',
      title: 'Appels par jour',
      column: 'Appels',
      tableHeader: 'Nombre d’appels',
      exportLabel: 'Exporter les appels (CSV)',
      series: stats.callsPerDay,
      totalLabel: 'Total',
      total: stats.totals.calls,
    },
  ];
}

function exportSeries(stats: TRingStats, view: SeriesView): void {
  const csv = toCsv(
    ['Date', view.column],
    view.series.map((d) => [fullDay(d.date), d.count]),
  );
  downloadCsv(`securering-${stats.ringId.slice(0, 8)}-${view.key}-${stats.days}j.csv`, csv);
}

/** Segmented control: a radio group with arrow-key navigation (one tab stop). */
function PeriodSelector({ value, onChange }: { value: Period; onChange: (period: Period) => void }) {
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    let next: number | undefined;
    if (event.key in moves) next = (index + (moves[event.key] ?? 0) + PERIODS.length) % PERIODS.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = PERIODS.length - 1;
    if (next === undefined) return;
    event.preventDefault();
    const period = PERIODS[next]!;
    onChange(period);
    const radios = event.currentTarget.parentElement?.querySelectorAll<HTMLButtonElement>('[role="radio"]');
    radios?.[next]?.focus();
  };
  return (
    <div
      role="radiogroup"
      aria-label="Période"
      className="inline-flex rounded-lg border border-slate-200 bg-slate-100 p-1"
    >
      {PERIODS.map((period, index) => {
        const checked = period === value;
        return (
          <button
            key={period}
            type="button"
            role="radio"
            aria-checked={checked}
            tabIndex={checked ? 0 : -1}
            onClick={() => onChange(period)}
            onKeyDown={(event) => onKeyDown(event, index)}
            className={cn(
              'rounded-md px-3 py-1.5 text-sm font-medium transition-colors',
              checked ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900',
            )}
          >
            {period} jours
          </button>
        );
      })}
    </div>
  );
}

function SummaryCard({ label, value, detail }: { label: string; value: string; detail: string }) {
  return (
    <Card className="p-4">
      <dt className="text-sm font-medium text-slate-500">{label}</dt>
      <dd className="mt-1 text-2xl font-bold tabular-nums">{value}</dd>
      <dd className="mt-1 text-xs text-slate-500">{detail}</dd>
    </Card>
  );
}

/** "Statistiques" tab of the customer space: real figures of the selected Ring. */
export function StatisticsTab({ ringId }: { ringId: string }) {
  const [days, setDays] = useState<Period>(DEFAULT_PERIOD);
  const headingId = useId();
  const query = useQuery({
    enabled: ringId !== '',
    queryKey: ['customer', 'ring-stats', ringId, days],
    queryFn: ({ signal }) =>
      apiRequest(`/api/customer/ring-stats.php?ring_id=${encodeURIComponent(ringId)}&days=${days}`, {
        auth: 'customer',
        schema: ZRingStatsResponse,
        signal,
        fallbackError: 'Impossible de charger les statistiques',
      }),
    // While another period loads, keep showing the same Ring's figures (never another Ring's).
    placeholderData: (previous) => (previous?.data.ringId === ringId ? previous : undefined),
  });
  const stats = query.data?.data;

  return (
    <section aria-labelledby={headingId} aria-busy={query.isFetching} className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h2 id={headingId} className="text-xl font-semibold">
            Statistiques du Ring
          </h2>
          <p className="text-sm text-slate-500">
            Activité sur les {stats?.days ?? days} derniers jours (jours UTC, aujourd’hui inclus).
          </p>
        </div>
        <div className="flex items-center gap-3">
          {query.isPlaceholderData ? <Spinner label="Mise à jour…" /> : null}
          <PeriodSelector value={days} onChange={setDays} />
        </div>
      </div>

      {query.isError ? (
        <LoadError
          title="Impossible de charger les statistiques"
          message={query.error.message}
          onRetry={() => void query.refetch()}
          refreshIcon
        />
      ) : null}

      {ringId === '' ? <Alert variant="info">Aucun ring sélectionné.</Alert> : null}

      {query.isPending && ringId !== '' ? (
        <div className="flex justify-center py-12">
          <Spinner className="size-8" label="Chargement des statistiques…" />
        </div>
      ) : null}

      {stats ? <StatisticsContent stats={stats} /> : null}
    </section>
  );
}

function StatisticsContent({ stats }: { stats: TRingStats }) {
  const period = `sur ${stats.days} jours`;
  const views = seriesViews(stats);
  return (
    <>
      <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <SummaryCard label="Messages" value={formatCount(stats.totals.messages)} detail={period} />
        <SummaryCard
          label="Membres actifs"
          value={formatCount(stats.totals.activeMembers)}
          detail={`${period}, sur ${formatCount(stats.totals.members)} membre${stats.totals.members > 1 ? 's' : ''}`}
        />
        <SummaryCard label="Appels" value={formatCount(stats.totals.calls)} detail={period} />
        <SummaryCard
          label="Stockage utilisé"
          value={`${formatGo(stats.storage.used)} / ${formatGo(stats.storage.allocated)}`}
          detail={`${formatCount(stats.totals.files)} fichier${stats.totals.files > 1 ? 's' : ''}`}
        />
      </dl>

      <div className="grid gap-6">
        {views.map((view) => (
          <Card key={view.key}>
            <CardHeader>
              <CardTitle>{view.title}</CardTitle>
              <CardDescription>
                {view.totalLabel} {period}&#8239;: {formatCount(view.total)}
              </CardDescription>
            </CardHeader>
            <CardContent>
              <BarChart
                title={view.title}
                data={view.series.map((d) => ({ label: shortDay(d.date), value: d.count }))}
                valueLabel={formatCount}
                labelHeader="Date"
                valueHeader={view.tableHeader}
              />
            </CardContent>
            <CardFooter>
              <Button variant="outline" size="sm" onClick={() => exportSeries(stats, view)}>
                <Download aria-hidden /> {view.exportLabel}
              </Button>
            </CardFooter>
          </Card>
        ))}
      </div>
    </>
  );
}
