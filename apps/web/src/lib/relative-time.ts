/**
 * "il y a 5 minutes": date-fns' `formatDistanceToNow(date, { addSuffix: true, locale: fr })`, ported
 * (date-fns 4.4) so that the Ring room, which shows relative times at first paint, downloads
 * neither date-fns' locales (its default English one comes along) nor its formatters.
 * relative-time.test.ts checks it against date-fns itself; lib/dates.ts re-exports it.
 */
export function formatRelative(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  const comparison = compare(date, now);
  if (Number.isNaN(comparison)) throw new RangeError('Invalid time value');
  const [earlier, later] = comparison > 0 ? [now, date] : [date, now];
  const seconds = Math.trunc((later.getTime() - earlier.getTime()) / 1000) || 0;
  const offsetInSeconds = (timezoneOffsetMs(later) - timezoneOffsetMs(earlier)) / 1000;
  const minutes = Math.round((seconds - offsetInSeconds) / 60);
  const text = distance(minutes, later, earlier);
  return comparison > 0 ? `dans ${text}` : `il y a ${text}`;
}

const MINUTES_IN_DAY = 1440;
const MINUTES_IN_ALMOST_TWO_DAYS = 2520;
const MINUTES_IN_MONTH = 43200;

/** date-fns' `formatDistance` buckets with the French words of its `fr` locale. */
function distance(minutes: number, later: Date, earlier: Date): string {
  const plural = (count: number, one: string, other: (n: number) => string) =>
    count === 1 ? one : other(count);
  if (minutes < 2) {
    return minutes === 0 ? 'moins d’une minute' : plural(minutes, '1 minute', (n) => `${n} minutes`);
  }
  if (minutes < 45) return `${minutes} minutes`;
  if (minutes < 90) return 'environ 1 heure';
  if (minutes < MINUTES_IN_DAY)
    return plural(Math.round(minutes / 60), 'environ 1 heure', (n) => `environ ${n} heures`);
  if (minutes < MINUTES_IN_ALMOST_TWO_DAYS) return '1 jour';
  if (minutes < MINUTES_IN_MONTH)
    return plural(Math.round(minutes / MINUTES_IN_DAY), '1 jour', (n) => `${n} jours`);
  if (minutes < MINUTES_IN_MONTH * 2)
    return plural(Math.round(minutes / MINUTES_IN_MONTH), 'environ 1 mois', (n) => `environ ${n} mois`);
  const months = differenceInMonths(later, earlier);
  if (months < 12) return plural(Math.round(minutes / MINUTES_IN_MONTH), '1 mois', (n) => `${n} mois`);
  const monthsSinceStartOfYear = months % 12;
  const years = Math.trunc(months / 12);
  if (monthsSinceStartOfYear < 3) return plural(years, 'environ 1 an', (n) => `environ ${n} ans`);
  if (monthsSinceStartOfYear < 9) return plural(years, 'plus d’un an', (n) => `plus de ${n} ans`);
  return plural(years + 1, 'presqu’un an', (n) => `presque ${n} ans`);
}

function compare(left: Date, right: Date): number {
  const diff = left.getTime() - right.getTime();
  return diff < 0 ? -1 : diff > 0 ? 1 : diff;
}

/** date-fns' `getTimezoneOffsetInMilliseconds` (the local offset, seconds included). */
function timezoneOffsetMs(date: Date): number {
  const utc = new Date(
    Date.UTC(
      date.getFullYear(),
      date.getMonth(),
      date.getDate(),
      date.getHours(),
      date.getMinutes(),
      date.getSeconds(),
      date.getMilliseconds(),
    ),
  );
  utc.setUTCFullYear(date.getFullYear());
  return date.getTime() - utc.getTime();
}

/** date-fns' `differenceInMonths`: full months between the two dates, month ends included. */
function differenceInMonths(later: Date, earlier: Date): number {
  const working = new Date(later.getTime());
  const sign = compare(working, earlier);
  const difference = Math.abs(
    (working.getFullYear() - earlier.getFullYear()) * 12 + working.getMonth() - earlier.getMonth(),
  );
  if (difference < 1) return 0;
  if (working.getMonth() === 1 && working.getDate() > 27) working.setDate(30);
  working.setMonth(working.getMonth() - sign * difference);
  let isLastMonthNotFull = compare(working, earlier) === -sign;
  if (isLastDayOfMonth(later) && difference === 1 && compare(later, earlier) === 1)
    isLastMonthNotFull = false;
  const result = sign * (difference - Number(isLastMonthNotFull));
  return result === 0 ? 0 : result;
}

function isLastDayOfMonth(date: Date): boolean {
  const endOfDay = new Date(date.getTime());
  endOfDay.setHours(23, 59, 59, 999);
  const endOfMonth = new Date(date.getTime());
  endOfMonth.setFullYear(endOfMonth.getFullYear(), endOfMonth.getMonth() + 1, 0);
  endOfMonth.setHours(23, 59, 59, 999);
  return endOfDay.getTime() === endOfMonth.getTime();
}
