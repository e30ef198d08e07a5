import { formatEuros } from '@securering/contract';

const MONTHS_FR = [
  'janvier',
  'février',
  'mars',
  'avril',
  'mai',
  'juin',
  'juillet',
  'août',
  'septembre',
  'octobre',
  'novembre',
  'décembre',
] as const;

const HOUR_MS = 3_600_000;

/** 01:00 UTC on the last Sunday of `month` (0-based) of `year`: when the EU's summer time starts or ends. */
export function lastSundayAtOneUtc(year: number, month: number): number {
  const lastDay = new Date(Date.UTC(year, month + 1, 0));
  return Date.UTC(year, month, lastDay.getUTCDate() - lastDay.getUTCDay(), 1);
}

/**
 * Paris's offset from UTC at `ms`, by the EU's summer-time rule (in force since 1996: UTC+2 from
 * 01:00 UTC on the last Sunday of March to 01:00 UTC on the last Sunday of October, UTC+1
 * otherwise); undefined outside the years it is known to hold for. The unit test compares it with
 * the time-zone data of Node's ICU every hour of 1996–2040, so a change of the rule in that data
 * fails it.
 */
export function parisOffsetMs(ms: number): number | undefined {
  const year = new Date(ms).getUTCFullYear();
  if (!(year >= 1996 && year < 2100)) return undefined;
  const summer = ms >= lastSundayAtOneUtc(year, 2) && ms < lastSundayAtOneUtc(year, 9);
  return summer ? 2 * HOUR_MS : HOUR_MS;
}

let intlDateFr: Intl.DateTimeFormat | undefined;

/**
 * "22 novembre 2026", in Paris time: how dates read in French mails. Computed without Intl (issue
 * 30): a French `Intl.DateTimeFormat` with a time zone maps about 8 MiB of ICU data into the
 * process for good, and every instance formats such dates (owner notifications, subscription
 * mails). Intl is used only for a date outside parisOffsetMs's years.
 */
export function formatDateFr(iso: string | Date): string {
  const ms = new Date(iso).getTime();
  const offset = parisOffsetMs(ms);
  if (offset === undefined) {
    intlDateFr ??= new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeZone: 'Europe/Paris' });
    return intlDateFr.format(ms);
  }
  const paris = new Date(ms + offset);
  return `${paris.getUTCDate()} ${MONTHS_FR[paris.getUTCMonth()]} ${paris.getUTCFullYear()}`;
}

export function formatCents(cents: number, currency = 'EUR'): string {
  if (currency.toUpperCase() === 'EUR') return formatEuros(cents / 100);
  return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

export const CYCLE_LABELS = { monthly: 'mensuel', yearly: 'annuel' } as const;
