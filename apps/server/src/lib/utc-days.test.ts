import { describe, expect, it } from 'vitest';
import { fillDays, lastUtcDays, nextUtcDayIso, windowOf } from './utc-days';

describe('lastUtcDays', () => {
  it('lists the UTC days ending with today, oldest first', () => {
    expect(lastUtcDays(new Date('2024-03-02T23:59:59.999Z'), 3)).toEqual([
      '2024-02-29',
      '2024-03-01',
      '2024-03-02',
    ]);
  });

  it('uses the UTC day, not the local one, and crosses years', () => {
    expect(lastUtcDays(new Date('2025-01-01T00:00:00.000Z'), 2)).toEqual(['2024-12-31', '2025-01-01']);
  });

  it('gives one day, or none', () => {
    expect(lastUtcDays(new Date('2024-06-15T12:00:00Z'), 1)).toEqual(['2024-06-15']);
    expect(lastUtcDays(new Date('2024-06-15T12:00:00Z'), 0)).toEqual([]);
  });
});

describe('nextUtcDayIso', () => {
  it('is midnight UTC of the following day', () => {
    expect(nextUtcDayIso('2024-02-28')).toBe('2024-02-29T00:00:00.000Z');
    expect(nextUtcDayIso('2024-12-31')).toBe('2025-01-01T00:00:00.000Z');
  });

  it('throws on a day that is not a date', () => {
    expect(() => nextUtcDayIso('not-a-day')).toThrow(RangeError);
  });
});

describe('windowOf', () => {
  it('spans the first day at midnight up to, excluding, the day after the last', () => {
    expect(windowOf(['2024-02-28', '2024-02-29', '2024-03-01'])).toEqual({
      fromIso: '2024-02-28T00:00:00.000Z',
      toIso: '2024-03-02T00:00:00.000Z',
    });
    expect(windowOf(['2024-05-10'])).toEqual({
      fromIso: '2024-05-10T00:00:00.000Z',
      toIso: '2024-05-11T00:00:00.000Z',
    });
  });

  it('refuses an empty list of days', () => {
    expect(() => windowOf([])).toThrow('A statistics window needs at least one day');
  });
});

describe('fillDays', () => {
  it('follows the listed days and counts 0 where there is no row', () => {
    expect(
      fillDays(
        ['2024-01-01', '2024-01-02', '2024-01-03'],
        [
          { day: '2024-01-03', count: 4 },
          { day: '2024-01-01', count: 2 },
          { day: '2023-12-31', count: 9 },
        ],
      ),
    ).toEqual([
      { date: '2024-01-01', count: 2 },
      { date: '2024-01-02', count: 0 },
      { date: '2024-01-03', count: 4 },
    ]);
  });
});
