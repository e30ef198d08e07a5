import { format } from 'date-fns';
import { fr } from 'date-fns/locale';
import { describe, expect, it } from 'vitest';
import {
  activityLabel,
  byLastActivity,
  dayLabel,
  readingMarks,
  totalUnread,
  unreadTitle,
} from './reading-marks';

// Sunday 29 November 2026, 12:00 local time.
const NOW = new Date(2026, 10, 29, 12, 0, 0);
const at = (day: number, hour: number, month = 10, year = 2026) =>
  new Date(year, month, day, hour, 0, 0).toISOString();

describe('dayLabel', () => {
  it('says « Aujourd’hui », « Hier », then the day in date-fns’ French words', () => {
    expect(dayLabel(at(29, 0), NOW)).toBe('Aujourd’hui');
    expect(dayLabel(at(29, 23), NOW)).toBe('Aujourd’hui');
    expect(dayLabel(at(28, 23), NOW)).toBe('Hier');
    expect(dayLabel(at(28, 0), NOW)).toBe('Hier');
    expect(dayLabel(at(23, 9), NOW)).toBe('lundi 23 novembre');
    for (const day of [1, 2, 3, 4, 5, 6, 7, 27])
      expect(dayLabel(at(day, 9), NOW)).toBe(format(new Date(at(day, 9)), 'EEEE d MMMM', { locale: fr }));
    // Another year: the year too.
    expect(dayLabel(at(31, 9, 11, 2025), NOW)).toBe('mercredi 31 décembre 2025');
    expect(dayLabel('pas une date', NOW)).toBe('');
  });
});

describe('activityLabel', () => {
  it('shows the time today, « Hier », the weekday within a week, else the date', () => {
    expect(activityLabel(new Date(2026, 10, 29, 9, 5).toISOString(), NOW)).toBe('09:05');
    expect(activityLabel(at(28, 22), NOW)).toBe('Hier');
    expect(activityLabel(at(24, 10), NOW)).toBe('mar.');
    expect(activityLabel(at(20, 10), NOW)).toBe('20/11/2026');
    expect(activityLabel(null, NOW)).toBe('');
  });
});

describe('readingMarks', () => {
  const entry = (key: string, seq: number | null, isOwn: boolean, timestamp: string) => ({
    key,
    seq,
    isOwn,
    timestamp,
  });

  it('puts a date separator before the first message of each day', () => {
    const marks = readingMarks(
      [
        entry('a', 1, false, at(27, 9)),
        entry('b', 2, true, at(27, 18)),
        entry('c', 3, false, at(28, 8)),
        entry('d', 4, false, at(29, 8)),
        entry('e', 5, false, at(29, 11)),
      ],
      null,
      NOW,
    );
    expect([...marks]).toEqual([
      ['a', { day: 'vendredi 27 novembre' }],
      ['c', { day: 'Hier' }],
      ['d', { day: 'Aujourd’hui' }],
    ]);
  });

  it('puts « Nouveaux messages » before the first message from others past the read mark, once', () => {
    const entries = [
      entry('a', 1, false, at(29, 8)),
      entry('b', 2, false, at(29, 9)),
      entry('own', 3, true, at(29, 9)),
      entry('c', 4, false, at(29, 10)),
      entry('d', 5, false, at(29, 10)),
    ];
    const range = (after: number, upTo = 5) => ({ after, upTo });
    const lines = (unread: { after: number; upTo: number } | null) =>
      [...readingMarks(entries, unread, NOW)].filter(([, m]) => m.firstUnread).map(([key]) => key);
    expect(readingMarks(entries, range(2), NOW).get('c')).toEqual({ firstUnread: true });
    expect(lines(range(2))).toEqual(['c']);
    // Nothing read: the line goes before the first message, with the day's separator.
    expect(readingMarks(entries, range(0), NOW).get('a')).toEqual({ day: 'Aujourd’hui', firstUnread: true });
    // All read, or no mark known: no line.
    expect(lines(range(5))).toEqual([]);
    expect(lines(null)).toEqual([]);
    // Messages that arrived while the conversation was on screen (past what it held when opened): none.
    expect(lines(range(2, 3))).toEqual([]);
    expect(lines(range(0, 0))).toEqual([]);
    expect(lines(range(2, 4))).toEqual(['c']);
    // One's own messages and those not stored yet are never « new ».
    expect(
      [
        ...readingMarks(
          [entry('own', 6, true, at(29, 11)), entry('p', null, false, at(29, 11))],
          { after: 5, upTo: 9 },
          NOW,
        ).values(),
      ].some((m) => m.firstUnread),
    ).toBe(false);
  });
});

describe('unreadTitle', () => {
  it('prefixes the count, replaces a previous one, removes it at 0 and caps it', () => {
    expect(unreadTitle('Salon — SecureRing', 3)).toBe('(3) Salon — SecureRing');
    expect(unreadTitle('(3) Salon — SecureRing', 4)).toBe('(4) Salon — SecureRing');
    expect(unreadTitle('(4) Salon — SecureRing', 0)).toBe('Salon — SecureRing');
    expect(unreadTitle('(99+) SecureRing', 150)).toBe('(99+) SecureRing');
    expect(unreadTitle('SecureRing', 0)).toBe('SecureRing');
  });

  it('sums the unread counts of every conversation', () => {
    expect(totalUnread([{ unread: 2 }, { unread: 0 }, { unread: 1 }])).toBe(3);
    expect(totalUnread([])).toBe(0);
  });
});

describe('byLastActivity', () => {
  it('orders by last message, latest first; without messages last; the room first among equals', () => {
    const list = [
      { id: 'room', kind: 'room' as const, lastActivityAt: at(27, 9) },
      { id: 'dm1', kind: 'dm' as const, lastActivityAt: null },
      { id: 'dm2', kind: 'dm' as const, lastActivityAt: at(29, 9) },
      { id: 'dm3', kind: 'dm' as const, lastActivityAt: at(28, 9) },
    ];
    expect(byLastActivity(list).map((c) => c.id)).toEqual(['dm2', 'dm3', 'room', 'dm1']);
    expect(
      byLastActivity([
        { id: 'dm', kind: 'dm' as const, lastActivityAt: null },
        { id: 'room', kind: 'room' as const, lastActivityAt: null },
      ]).map((c) => c.id),
    ).toEqual(['room', 'dm']);
  });
});
