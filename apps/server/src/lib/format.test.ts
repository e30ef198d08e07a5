import { describe, expect, it } from 'vitest';
import { formatDateFr, lastSundayAtOneUtc, parisOffsetMs } from './format';

const HOUR_MS = 3_600_000;
const icuDateFr = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeZone: 'Europe/Paris' });
const icuParisOffset = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Paris',
  timeZoneName: 'shortOffset',
});

describe('formatDateFr', () => {
  it('writes the day of Paris in French', () => {
    expect(formatDateFr('2026-11-22T10:00:00.000Z')).toBe('22 novembre 2026');
    expect(formatDateFr('2026-02-01T08:00:00.000Z')).toBe('1 février 2026');
    expect(formatDateFr(new Date('2026-08-15T12:00:00Z'))).toBe('15 août 2026');
    // 23:30 UTC is already the next day in Paris (UTC+1 in winter, UTC+2 in summer).
    expect(formatDateFr('2026-12-31T23:30:00.000Z')).toBe('1 janvier 2027');
    expect(formatDateFr('2026-07-14T22:30:00.000Z')).toBe('15 juillet 2026');
    expect(formatDateFr('2026-07-14T21:30:00.000Z')).toBe('14 juillet 2026');
  });

  it('gives what ICU gives for every hour of 1996–2040, around each change of summer time too', () => {
    const mismatches: string[] = [];
    const check = (ms: number) => {
      const expected = icuDateFr.format(ms);
      const actual = formatDateFr(new Date(ms));
      if (actual !== expected && mismatches.length < 5)
        mismatches.push(`${new Date(ms).toISOString()}: ${actual} ≠ ${expected}`);
    };
    for (let ms = Date.UTC(1996, 0, 1); ms < Date.UTC(2041, 0, 1); ms += HOUR_MS) check(ms);
    // Around each change, to the minute: the offset flips where ICU's data flips it (the hourly
    // loop above checks that the change is on the right day).
    for (let year = 1996; year <= 2040; year++)
      for (const month of [2, 9]) {
        const change = lastSundayAtOneUtc(year, month);
        for (let ms = change - 2 * HOUR_MS; ms <= change + 2 * HOUR_MS; ms += 60_000) {
          const offsetHours = Number(
            icuParisOffset
              .formatToParts(ms)
              .find((part) => part.type === 'timeZoneName')!
              .value.replace('GMT', ''),
          );
          if (parisOffsetMs(ms) !== offsetHours * HOUR_MS && mismatches.length < 5)
            mismatches.push(`${new Date(ms).toISOString()}: offset ${parisOffsetMs(ms)} ≠ ${offsetHours} h`);
        }
      }
    expect(mismatches).toEqual([]);
  });

  it('falls back on ICU outside the years the rule is known for', () => {
    expect(parisOffsetMs(Date.UTC(1990, 6, 1))).toBeUndefined();
    expect(formatDateFr('1990-07-01T12:00:00.000Z')).toBe(icuDateFr.format(Date.UTC(1990, 6, 1, 12)));
    expect(formatDateFr('2150-03-01T12:00:00.000Z')).toBe(icuDateFr.format(Date.UTC(2150, 2, 1, 12)));
  });
});
