import { DAY_MS } from './clock';

/** One UTC day ('YYYY-MM-DD') and its count; days without activity are absent. */
export interface DayCountRow {
  day: string;
  count: number;
}

/** A half-open time range [fromIso, toIso) of ISO-8601 UTC text, compared as strings. */
export interface TimeWindow {
  fromIso: string;
  toIso: string;
}

/** The last `days` UTC days ending with the day of `now`, oldest first, as 'YYYY-MM-DD'. */
export function lastUtcDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
}

/** 00:00 UTC of the day after `day` ('YYYY-MM-DD'), as ISO text: the exclusive end of that day. */
export function nextUtcDayIso(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString();
}

/** From the first listed day at 00:00 UTC up to (excluding) the day after the last one. */
export function windowOf(days: string[]): TimeWindow {
  const first = days[0];
  const last = days[days.length - 1];
  if (!first || !last) throw new Error('A statistics window needs at least one day');
  return { fromIso: `${first}T00:00:00.000Z`, toIso: nextUtcDayIso(last) };
}

/** One entry per day, in the order of `days`; days without a row count 0. */
export function fillDays(days: string[], rows: DayCountRow[]): Array<{ date: string; count: number }> {
  const byDay = new Map(rows.map((r) => [r.day, r.count]));
  return days.map((date) => ({ date, count: byDay.get(date) ?? 0 }));
}
