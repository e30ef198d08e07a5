import {
  LOG_CATEGORIES,
  LOG_LEVELS,
  LOG_LEVEL_LABELS,
  LOG_PAGE_SIZE,
  LOG_PURGE_DEFAULT_DAYS,
  type LogCategory,
  type LogLevel,
  type TAdminLogEntry,
} from '@securering/contract';
import { ChevronLeft, ChevronRight, Copy, Eraser, RefreshCw, Search, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Input, NativeSelect } from '@/components/ui/input';
import { Field, Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { useCopyToClipboard } from '@/components/ui/use-copy-to-clipboard';
import { useAdminSession } from '@/lib/auth/admin-session';
import { useClearLogs, useLogs, usePurgeLogs, useToggleLogging, type LogsFilter } from './logs-api';
import { categoryLabel, formatDetails, formatLogTime, logEntryToText } from './logs-format';

const LEVEL_VARIANT = { info: 'default', warning: 'warning', error: 'danger', critical: 'danger' } as const;

type Confirm = 'all' | 'filtered' | 'purge' | null;

const INITIAL_FILTER: LogsFilter = { category: '', level: '', hideTechnical: false, search: '', offset: 0 };

/** The Logs tab (spec 3 §2.13): logging switch, filters, paging by 50, clearing and purging. */
export function LogsTab() {
  const session = useAdminSession();
  const canEdit = session.can('system_logs', 'edit');
  const canDelete = session.can('system_logs', 'delete');
  const [filter, setFilter] = useState<LogsFilter>(INITIAL_FILTER);
  const [searchInput, setSearchInput] = useState('');
  const [confirm, setConfirm] = useState<Confirm>(null);
  const logs = useLogs(filter);
  const toggle = useToggleLogging();
  const clear = useClearLogs();
  const purge = usePurgeLogs();
  const notify = useToast();

  /** Any filter change goes back to the first page. */
  const changeFilter = (changes: Partial<Omit<LogsFilter, 'offset'>>) =>
    setFilter((current) => ({ ...current, ...changes, offset: 0 }));

  const total = logs.data?.total ?? 0;
  const entries = logs.data?.logs ?? [];
  const loggingEnabled = logs.data?.logging_enabled ?? true;
  const hasFilter = Boolean(filter.category || filter.level);
  const page = Math.floor(filter.offset / LOG_PAGE_SIZE) + 1;
  const pages = Math.max(1, Math.ceil(total / LOG_PAGE_SIZE));

  const handleToggle = (enabled: boolean) =>
    toggle.mutate(enabled, {
      onSuccess: (res) => notify({ title: res.message, variant: 'success' }),
      onError: (error) =>
        notify({
          title: `Impossible de modifier les paramètres de logging\u202f: ${error.message}`,
          variant: 'error',
        }),
    });

  const handleConfirm = () => {
    const done = (res: { message: string }) => {
      notify({ title: res.message, variant: 'success' });
      setConfirm(null);
      setFilter((current) => ({ ...current, offset: 0 }));
    };
    if (confirm === 'purge') {
      purge.mutate(LOG_PURGE_DEFAULT_DAYS, {
        onSuccess: done,
        onError: (error) => {
          setConfirm(null);
          notify({ title: 'Impossible de purger les logs.', description: error.message, variant: 'error' });
        },
      });
      return;
    }
    const body =
      confirm === 'filtered'
        ? { category: filter.category || ('all' as const), ...(filter.level ? { level: filter.level } : {}) }
        : { category: 'all' as const };
    clear.mutate(body, {
      onSuccess: done,
      onError: (error) => {
        setConfirm(null);
        notify({ title: 'Impossible de supprimer les logs.', description: error.message, variant: 'error' });
      },
    });
  };

  const copy = useCopyToClipboard(
    { title: 'Entrée copiée', duration: 2000 },
    { title: 'Copie impossible', description: 'Le presse-papiers n’est pas accessible.' },
  );

  const filterLabel = [
    filter.category ? `catégorie «\u202f${categoryLabel(filter.category)}\u202f»` : null,
    filter.level ? `niveau «\u202f${LOG_LEVEL_LABELS[filter.level]}\u202f»` : null,
  ]
    .filter(Boolean)
    .join(' et ');

  return (
    <div className="space-y-6">
      <Card>
        <CardHeader className="flex-row flex-wrap items-start justify-between gap-4">
          <div className="space-y-1.5">
            <CardTitle>Journal système</CardTitle>
            <CardDescription>
              Authentification, paiements, emails, administration et erreurs signalées par les navigateurs.
            </CardDescription>
          </div>
          <div className="flex items-center gap-2 rounded-md border border-slate-200 px-3 py-2">
            <Switch
              id="logging-enabled"
              checked={loggingEnabled}
              disabled={!canEdit || logs.isPending}
              onCheckedChange={handleToggle}
            />
            <Label htmlFor="logging-enabled">{loggingEnabled ? 'Logging activé' : 'Logging désactivé'}</Label>
          </div>
        </CardHeader>
        <CardContent className="space-y-4">
          {!loggingEnabled ? (
            <Alert variant="info">
              Logging désactivé&#8239;: seules les erreurs et les entrées critiques sont enregistrées.
            </Alert>
          ) : null}
          <div className="grid gap-3 md:grid-cols-[1fr_1fr_2fr]">
            <Field id="logs-category" label="Catégorie">
              <NativeSelect
                id="logs-category"
                value={filter.category}
                onChange={(e) => changeFilter({ category: e.target.value as LogCategory | '' })}
              >
                <option value="">Toutes</option>
                {LOG_CATEGORIES.map((c) => (
                  <option key={c} value={c}>
                    {categoryLabel(c)}
                  </option>
                ))}
              </NativeSelect>
            </Field>
            <Field id="logs-level" label="Niveau">
              <NativeSelect
                id="logs-level"
                value={filter.level}
                onChange={(e) => changeFilter({ level: e.target.value as LogLevel | '' })}
              >
                <option value="">Tous</option>
                {LOG_LEVELS.map((l) => (
                  <option key={l} value={l}>
                    {LOG_LEVEL_LABELS[l]}
                  </option>
                ))}
              </NativeSelect>
            </Field>
            <form
              role="search"
              className="flex items-end gap-2"
              onSubmit={(event) => {
                event.preventDefault();
                changeFilter({ search: searchInput });
              }}
            >
              <Field id="logs-search" label="Rechercher dans les messages" className="flex-1">
                <Input
                  id="logs-search"
                  type="search"
                  value={searchInput}
                  maxLength={200}
                  onChange={(e) => {
                    setSearchInput(e.target.value);
                    if (!e.target.value && filter.search) changeFilter({ search: '' });
                  }}
                />
              </Field>
              <Button type="submit" variant="outline" aria-label="Rechercher">
                <Search aria-hidden />
              </Button>
            </form>
          </div>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <div className="flex items-center gap-2">
              <Switch
                id="logs-hide-technical"
                checked={filter.hideTechnical}
                onCheckedChange={(hideTechnical) => changeFilter({ hideTechnical })}
              />
              <Label htmlFor="logs-hide-technical">Masquer les requêtes techniques</Label>
            </div>
            <div className="flex flex-wrap gap-2">
              <Button
                variant="ghost"
                size="sm"
                onClick={() => void logs.refetch()}
                disabled={logs.isFetching}
              >
                <RefreshCw aria-hidden /> Actualiser
              </Button>
              {canDelete ? (
                <>
                  <Button variant="outline" size="sm" onClick={() => setConfirm('purge')}>
                    <Eraser aria-hidden /> Purger (&gt; {LOG_PURGE_DEFAULT_DAYS} jours)
                  </Button>
                  <Button
                    variant="outline"
                    size="sm"
                    disabled={!hasFilter}
                    title={hasFilter ? undefined : 'Choisissez une catégorie ou un niveau'}
                    onClick={() => setConfirm('filtered')}
                  >
                    <Trash2 aria-hidden /> Supprimer (filtre)
                  </Button>
                  <Button variant="destructive" size="sm" onClick={() => setConfirm('all')}>
                    <Trash2 aria-hidden /> Tout supprimer
                  </Button>
                </>
              ) : null}
            </div>
          </div>

          {logs.isPending ? (
            <Spinner />
          ) : logs.isError ? (
            <LoadError message={logs.error.message} onRetry={() => void logs.refetch()} />
          ) : (
            <>
              <p className="text-sm text-slate-600" aria-live="polite">
                {total} {total > 1 ? 'entrées' : 'entrée'}
                {total > 0 ? ` · page ${page} / ${pages}` : ''}
              </p>
              {entries.length === 0 ? (
                <p className="rounded-lg border border-dashed border-slate-300 p-6 text-center text-sm text-slate-500">
                  Aucune entrée.
                </p>
              ) : (
                <ul className={logs.isPlaceholderData ? 'space-y-2 opacity-60' : 'space-y-2'}>
                  {entries.map((entry) => (
                    <LogEntryRow
                      key={entry.id}
                      entry={entry}
                      onCopy={() => void copy(logEntryToText(entry))}
                    />
                  ))}
                </ul>
              )}
              <div className="flex items-center justify-between gap-2">
                <Button
                  variant="outline"
                  size="sm"
                  disabled={filter.offset === 0}
                  onClick={() =>
                    setFilter((current) => ({
                      ...current,
                      offset: Math.max(0, current.offset - LOG_PAGE_SIZE),
                    }))
                  }
                >
                  <ChevronLeft aria-hidden /> Précédent
                </Button>
                <Button
                  variant="outline"
                  size="sm"
                  disabled={filter.offset + LOG_PAGE_SIZE >= total}
                  onClick={() =>
                    setFilter((current) => ({ ...current, offset: current.offset + LOG_PAGE_SIZE }))
                  }
                >
                  Suivant <ChevronRight aria-hidden />
                </Button>
              </div>
            </>
          )}
        </CardContent>
      </Card>

      <ConfirmDialog
        open={confirm !== null}
        onOpenChange={(open) => (open ? undefined : setConfirm(null))}
        title={
          confirm === 'purge'
            ? 'Purger les anciens logs\u202f?'
            : confirm === 'filtered'
              ? 'Supprimer les logs filtrés\u202f?'
              : 'Supprimer tous les logs\u202f?'
        }
        description={
          confirm === 'purge'
            ? `Les entrées de plus de ${LOG_PURGE_DEFAULT_DAYS} jours seront supprimées définitivement.`
            : confirm === 'filtered'
              ? `Toutes les entrées (${filterLabel}) seront supprimées définitivement, y compris celles des autres pages.`
              : 'Toutes les entrées du journal seront supprimées définitivement.'
        }
        confirmLabel={confirm === 'purge' ? 'Purger' : 'Supprimer'}
        pending={clear.isPending || purge.isPending}
        onConfirm={handleConfirm}
      />
    </div>
  );
}

function LogEntryRow({ entry, onCopy }: { entry: TAdminLogEntry; onCopy: () => void }) {
  const details = formatDetails(entry.details);
  return (
    <li className="rounded-lg border border-slate-200 bg-white p-3 text-sm">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 flex-1 space-y-1">
          <div className="flex flex-wrap items-center gap-2 text-xs text-slate-500">
            <time dateTime={entry.created_at}>{formatLogTime(entry.created_at)}</time>
            <Badge
              variant={LEVEL_VARIANT[entry.level]}
              className={entry.level === 'critical' ? 'font-bold uppercase' : ''}
            >
              {LOG_LEVEL_LABELS[entry.level]}
            </Badge>
            <Badge variant="neutral">{categoryLabel(entry.category)}</Badge>
            {entry.ip_address ? <span>IP {entry.ip_address}</span> : null}
            {entry.user_id ? (
              <span title={entry.user_id}>Utilisateur {entry.user_label ?? entry.user_id}</span>
            ) : null}
          </div>
          <p className="break-words text-slate-900">{entry.message}</p>
          {details || entry.user_agent ? (
            <details className="text-xs">
              <summary className="cursor-pointer text-slate-600 hover:text-slate-900">Détails</summary>
              {entry.user_agent ? (
                <p className="mt-2 break-all text-slate-500">Navigateur&#8239;: {entry.user_agent}</p>
              ) : null}
              {details ? (
                <pre className="mt-2 max-h-72 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2">
                  {details}
                </pre>
              ) : null}
            </details>
          ) : null}
        </div>
        <Button variant="ghost" size="icon" className="size-8" aria-label="Copier l’entrée" onClick={onCopy}>
          <Copy aria-hidden />
        </Button>
      </div>
    </li>
  );
}
