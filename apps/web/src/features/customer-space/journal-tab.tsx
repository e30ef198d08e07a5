import {
  RING_JOURNAL_PAGE_SIZE,
  ZRingJournalResponse,
  formatCount,
  type TRingJournalEntry,
} from '@securering/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { format } from 'date-fns';
import { fr } from 'date-fns/locale';
import { ChevronLeft, ChevronRight, Download } from 'lucide-react';
import { useId, useState } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { apiRequest } from '@/lib/api-client';
import { apiErrorMessage } from '@/lib/api-error-message';
import { downloadCsv, toCsv } from '@/lib/csv';

const SOURCE_LABELS: Record<TRingJournalEntry['source'], string> = {
  log: 'Journal signé',
  server: 'Serveur',
};

/** "29 novembre 2026 à 14:05:09", in the browser's time zone. */
const when = (iso: string) => format(new Date(iso), "d MMMM yyyy 'à' HH:mm:ss", { locale: fr });

const journalUrl = (ringId: string, query: string) =>
  `/api/customer/ring-journal.php?ring_id=${encodeURIComponent(ringId)}&${query}`;

/**
 * CSV of the whole journal (the newest 5 000 entries): UTF-8 with a BOM, ';' between fields (what
 * French Excel reads), a text that starts like a formula kept as text (lib/csv.ts).
 */
async function exportJournal(ringId: string): Promise<void> {
  const { data } = await apiRequest(journalUrl(ringId, 'export=1'), {
    auth: 'customer',
    schema: ZRingJournalResponse,
    fallbackError: 'Impossible d’exporter le journal',
  });
  const csv = toCsv(
    ['Date (UTC)', 'Événement', 'Source', 'N° du lien signé'],
    data.entries.map((e) => [e.at, e.text, SOURCE_LABELS[e.source], e.seq]),
  );
  downloadCsv(`securering-${ringId.slice(0, 8)}-journal.csv`, csv);
}

/**
 * « Journal » tab of the customer space (issue 25): who joined, was admitted or refused, left,
 * changed keys, and the settings changed, newest first, exportable as CSV.
 */
export function JournalTab({ ringId }: { ringId: string }) {
  const [page, setPage] = useState(1);
  const [exporting, setExporting] = useState<string | null>(null);
  const headingId = useId();
  const query = useQuery({
    queryKey: ['customer', 'ring-journal', ringId, page],
    queryFn: ({ signal }) =>
      apiRequest(journalUrl(ringId, `page=${page}`), {
        auth: 'customer',
        schema: ZRingJournalResponse,
        signal,
        fallbackError: 'Impossible de charger le journal',
      }),
    placeholderData: keepPreviousData,
  });
  const journal = query.data?.data.ringId === ringId ? query.data.data : undefined;
  const pages = journal ? Math.max(1, Math.ceil(journal.total / RING_JOURNAL_PAGE_SIZE)) : 1;

  const onExport = async () => {
    setExporting('');
    try {
      await exportJournal(ringId);
      setExporting(null);
    } catch (error) {
      setExporting(apiErrorMessage(error, 'Impossible d’exporter le journal'));
    }
  };

  return (
    <section aria-labelledby={headingId} aria-busy={query.isFetching} className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h2 id={headingId} className="text-xl font-semibold">
            Journal du Ring
          </h2>
          <p className="max-w-2xl text-sm text-slate-500">
            Arrivées, admissions, refus, départs, changements de clés et de paramètres, du plus récent au plus
            ancien. Ces données viennent du serveur&#8239;: ce sont les membres qui vérifient le journal
            signé, dans le Ring.
          </p>
        </div>
        <Button
          variant="outline"
          size="sm"
          disabled={!journal || journal.total === 0 || exporting === ''}
          onClick={() => void onExport()}
        >
          <Download aria-hidden /> {exporting === '' ? 'Export…' : 'Exporter le journal (CSV)'}
        </Button>
      </div>

      {exporting ? <Alert variant="error">{exporting}</Alert> : null}

      {query.isError && !journal ? (
        <LoadError
          title="Impossible de charger le journal"
          message={query.error.message}
          onRetry={() => void query.refetch()}
          refreshIcon
        />
      ) : null}

      {query.isPending ? (
        <div className="flex justify-center py-12">
          <Spinner className="size-8" label="Chargement du journal…" />
        </div>
      ) : null}

      {journal ? (
        journal.entries.length === 0 ? (
          <Alert variant="info">Aucun événement pour ce Ring pour le moment.</Alert>
        ) : (
          <Card>
            <CardContent className="pt-6">
              <ol aria-label="Événements du Ring" className="divide-y divide-slate-100">
                {journal.entries.map((entry) => (
                  <li
                    key={`${entry.source}-${entry.seq ?? ''}-${entry.at}-${entry.kind}-${entry.text}`}
                    className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 py-2"
                  >
                    <span className="font-medium text-slate-900">{entry.text}</span>
                    <span className="flex items-center gap-2 text-sm text-slate-500">
                      <Badge variant={entry.source === 'log' ? 'success' : 'neutral'}>
                        {SOURCE_LABELS[entry.source]}
                        {entry.seq !== null ? ` n°\u00a0${entry.seq}` : ''}
                      </Badge>
                      <time dateTime={entry.at}>{when(entry.at)}</time>
                    </span>
                  </li>
                ))}
              </ol>
            </CardContent>
          </Card>
        )
      ) : null}

      {journal && pages > 1 ? (
        <nav aria-label="Pages du journal" className="flex items-center justify-between gap-3">
          <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            <ChevronLeft aria-hidden /> Plus récents
          </Button>
          <span className="text-sm text-slate-600">
            Page {formatCount(journal.page)} sur {formatCount(pages)} · {formatCount(journal.total)}{' '}
            événements
          </span>
          <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
            Plus anciens <ChevronRight aria-hidden />
          </Button>
        </nav>
      ) : null}
    </section>
  );
}
