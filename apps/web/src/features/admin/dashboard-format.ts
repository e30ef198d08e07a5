import { format } from 'date-fns';
import { fr } from 'date-fns/locale';
import type { TAdminStats } from '@securering/contract';

/** "3 j 4 h 12 min" (days only when there are some; "0 min" at start). */
export function formatUptime(totalSec: number): string {
  const sec = Math.max(0, Math.floor(totalSec));
  const days = Math.floor(sec / 86_400);
  const hours = Math.floor((sec % 86_400) / 3600);
  const minutes = Math.floor((sec % 3600) / 60);
  return days > 0
    ? `${days} j ${hours} h ${minutes} min`
    : hours > 0
      ? `${hours} h ${minutes} min`
      : `${minutes} min`;
}

const GO = 1024 ** 3;
const twoDecimals = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Bytes as French gigabytes (base 1024, like the plans' disk space): "1,25 Go". */
export function formatGo(bytes: number): string {
  return `${twoDecimals.format(Math.max(0, bytes) / GO)} Go`;
}

const MO = 1024 ** 2;
const oneDecimal = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });

/** Bytes as French megabytes, for small amounts: "12,4 Mo". */
export function formatMo(bytes: number): string {
  return `${oneDecimal.format(Math.max(0, bytes) / MO)} Mo`;
}

/** "2026-11" → "nov. 26" (French month, two-digit year). */
export function monthLabel(month: string): string {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  return format(new Date(y, m - 1, 1), 'MMM yy', { locale: fr });
}

/** "2026-11-22" → "22/11". */
export function dayLabel(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  if (!y || !m || !d) return date;
  return format(new Date(y, m - 1, d), 'dd/MM', { locale: fr });
}

/** Milliseconds with at most one decimal, French style: "12,5 ms". */
export function formatMs(ms: number): string {
  return `${new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 }).format(ms)} ms`;
}

export const LEVEL_LABELS: Record<
  string,
  { label: string; variant: 'neutral' | 'warning' | 'danger' | 'default' }
> = {
  info: { label: 'Info', variant: 'neutral' },
  warning: { label: 'Avertissement', variant: 'warning' },
  error: { label: 'Erreur', variant: 'danger' },
  critical: { label: 'Critique', variant: 'danger' },
};

/** Bytes in Go from 1 Go, else in Mo. */
const formatBytes = (bytes: number): string => (bytes >= GO ? formatGo(bytes) : formatMo(bytes));

/**
 * The dashboard's free-space figure: the tone follows the server's thresholds (warning below
 * `warnFreeBytes`, danger below DATA_DIR_MIN_FREE_MB, when /readyz fails and writes get 507), and
 * `alert` says what to do when space runs low.
 */
export function diskFreeSummary(disk: TAdminStats['disk']): {
  value: string;
  detail: string;
  tone: 'ok' | 'warning' | 'danger';
  alert: string | null;
} {
  if (!disk)
    return { value: '—', detail: 'espace libre illisible sur DATA_DIR', tone: 'warning', alert: null };
  const percent = disk.totalBytes > 0 ? Math.round((disk.freeBytes / disk.totalBytes) * 100) : 0;
  const detail = `${percent} % de ${formatBytes(disk.totalBytes)} · alerte sous ${formatBytes(disk.warnFreeBytes)}, écritures refusées sous ${formatBytes(disk.minFreeBytes)}`;
  if (disk.state === 'full')
    return {
      value: formatBytes(disk.freeBytes),
      detail,
      tone: 'danger',
      alert: `Disque plein\u202f: il reste ${formatBytes(disk.freeBytes)} sur DATA_DIR, sous le seuil de ${formatBytes(disk.minFreeBytes)}. Cette instance est retirée du service (/readyz) et les écritures sont refusées. Libérez de l’espace (anciennes sauvegardes, journaux) ou agrandissez le disque.`,
    };
  if (disk.state === 'low')
    return {
      value: formatBytes(disk.freeBytes),
      detail,
      tone: 'warning',
      alert: `Espace disque faible\u202f: il reste ${formatBytes(disk.freeBytes)} sur DATA_DIR. Sous ${formatBytes(disk.minFreeBytes)}, les écritures seront refusées.`,
    };
  return { value: formatBytes(disk.freeBytes), detail, tone: 'ok', alert: null };
}
