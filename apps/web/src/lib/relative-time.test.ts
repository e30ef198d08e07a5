import { formatDistance } from 'date-fns';
import { fr } from 'date-fns/locale';
import { describe, expect, it } from 'vitest';
import { formatRelative } from './relative-time';

/** What lib/dates.ts returned before the port: date-fns with the French locale. */
const dateFns = (date: Date, now: Date) => formatDistance(date, now, { addSuffix: true, locale: fr });

describe('formatRelative', () => {
  it('says « il y a » for the past and « dans » for the future, in date-fns’ French words', () => {
    const now = new Date(2026, 10, 29, 12, 0, 0);
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    expect(formatRelative(at(-10_000), now)).toBe('il y a moins d’une minute');
    expect(formatRelative(at(-5 * 60_000), now)).toBe('il y a 5 minutes');
    expect(formatRelative(at(-60 * 60_000), now)).toBe('il y a environ 1 heure');
    expect(formatRelative(at(-3 * 86_400_000), now)).toBe('il y a 3 jours');
    expect(formatRelative(at(2 * 60_000), now)).toBe('dans 2 minutes');
    expect(() => formatRelative('pas une date', now)).toThrow(RangeError);
  });

  it('gives exactly what date-fns gave, from seconds to decades, month ends and leap days included', () => {
    const nows = [
      new Date(2026, 10, 29, 12, 0, 0),
      new Date(2026, 0, 31, 23, 59, 59),
      new Date(2024, 1, 29, 0, 0, 0),
      new Date(2026, 2, 29, 2, 30, 0),
      new Date(2026, 11, 31, 18, 45, 12),
    ];
    // Offsets that hit every bucket edge (seconds, minutes, hours, days, months, years) and a spread.
    const edges = [0, 1, 29, 30, 59, 60, 89, 90, 119, 120, 2_699, 2_700, 5_399, 5_400, 86_399, 86_400];
    const spans = [60, 3_600, 86_400, 30 * 86_400, 365 * 86_400];
    const offsets = new Set<number>();
    for (const edge of edges) for (const d of [-1, 0, 1]) offsets.add(edge + d);
    for (const span of spans) for (let k = 0; k <= 40; k++) offsets.add(Math.round(span * k * 0.37));
    let seed = 7;
    for (let i = 0; i < 600; i++) {
      seed = (seed * 48271) % 2147483647;
      offsets.add(seed % (40 * 365 * 86_400));
    }
    let checked = 0;
    for (const now of nows) {
      for (const seconds of offsets) {
        for (const sign of [-1, 1]) {
          const date = new Date(now.getTime() + sign * seconds * 1000);
          expect(
            formatRelative(date.toISOString(), now),
            `${date.toISOString()} vs ${now.toISOString()}`,
          ).toBe(dateFns(date, now));
          checked++;
        }
      }
      // Every day of a year and a half around `now`, at the same time: month ends and leap days.
      for (let day = -550; day <= 550; day++) {
        const date = new Date(now);
        date.setDate(date.getDate() + day);
        expect(formatRelative(date.toISOString(), now)).toBe(dateFns(date, now));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });
});
