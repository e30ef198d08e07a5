import type { ChatEntry } from './chat-policy';

/**
 * The reading state of a conversation (issue 29): date separators, the « Nouveaux messages » line,
 * the unread count in the tab title and the last activity of the conversation list. Pure rules.
 *
 * Dates are written with Intl (the browser's own French) rather than date-fns' `format` and `fr`
 * locale: the room's first load is at its budget (see lib/relative-time.ts); reading-marks.test.ts
 * checks the words against date-fns' `fr` locale.
 */

const DAY_MS = 86_400_000;

/** Local midnight of `date`. */
function startOfDay(date: Date): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** Whole local days from `date` to `now` (0: same day, 1: yesterday), DST-proof. */
function daysBefore(date: Date, now: Date): number {
  return Math.round((startOfDay(now) - startOfDay(date)) / DAY_MS);
}

const LONG_DAY = new Intl.DateTimeFormat('fr-FR', { weekday: 'long', day: 'numeric', month: 'long' });
const LONG_DAY_YEAR = new Intl.DateTimeFormat('fr-FR', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
});
const SHORT_WEEKDAY = new Intl.DateTimeFormat('fr-FR', { weekday: 'short' });
const TIME = new Intl.DateTimeFormat('fr-FR', { hour: '2-digit', minute: '2-digit' });

/** A date separator: « Aujourd’hui », « Hier », « lundi 23 novembre » (the year when not this one). */
export function dayLabel(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const days = daysBefore(date, now);
  if (days === 0) return 'Aujourd’hui';
  if (days === 1) return 'Hier';
  return (date.getFullYear() === now.getFullYear() ? LONG_DAY : LONG_DAY_YEAR).format(date);
}

/**
 * The last activity of a conversation in the list, as messaging apps show it: « 14:05 » today,
 * « Hier », the weekday within the week (« lun. »), else « 23/11/2026 ».
 */
export function activityLabel(iso: string | null, now: Date = new Date()): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const days = daysBefore(date, now);
  if (days <= 0) return TIME.format(date);
  if (days === 1) return 'Hier';
  if (days < 7) return SHORT_WEEKDAY.format(date);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getDate())}/${pad(date.getMonth() + 1)}/${date.getFullYear()}`;
}

/** The messages unread when a conversation was opened: sequence numbers in (after, upTo]. */
export interface UnreadRange {
  after: number;
  upTo: number;
}

/** What goes before a message in the timeline. */
export interface ReadingMark {
  /** A new day starts here: its separator's words. */
  day?: string;
  /** The first message from others the member had not read when it opened the conversation. */
  firstUnread?: true;
}

/**
 * Where the separators go among `entries` (in display order, those not shown left out): a date
 * separator before the first message of each day, and the « Nouveaux messages » line before the
 * first message from someone else in `unread` — past the read position the conversation had when it
 * was opened, up to the latest message it then held (those arriving while it is on screen are read
 * as they come); null: no line. Messages not stored yet (no sequence number) are never unread.
 */
export function readingMarks(
  entries: readonly Pick<ChatEntry, 'key' | 'seq' | 'isOwn' | 'timestamp'>[],
  unread: UnreadRange | null,
  now: Date = new Date(),
): Map<string, ReadingMark> {
  const marks = new Map<string, ReadingMark>();
  let previousDay: number | null = null;
  let unreadPlaced = unread === null || unread.upTo <= unread.after;
  for (const entry of entries) {
    const mark: ReadingMark = {};
    const date = new Date(entry.timestamp);
    const day: number | null = Number.isNaN(date.getTime()) ? previousDay : startOfDay(date);
    if (day !== null && day !== previousDay) mark.day = dayLabel(entry.timestamp, now);
    previousDay = day;
    if (
      !unreadPlaced &&
      unread &&
      !entry.isOwn &&
      entry.seq !== null &&
      entry.seq > unread.after &&
      entry.seq <= unread.upTo
    ) {
      mark.firstUnread = true;
      unreadPlaced = true;
    }
    if (mark.day !== undefined || mark.firstUnread) marks.set(entry.key, mark);
  }
  return marks;
}

/** « (3) SecureRing — Salon » from the page's own title; the count removed at 0, capped at 99+. */
export function unreadTitle(title: string, unread: number): string {
  const base = title.replace(/^\(\d+\+?\) /, '');
  if (unread <= 0) return base;
  return `(${unread > 99 ? '99+' : unread}) ${base}`;
}

/** The member's total unread messages over its conversations (the tab title's count). */
export function totalUnread(conversations: readonly { unread: number }[]): number {
  return conversations.reduce((sum, c) => sum + c.unread, 0);
}

/**
 * The conversation list's order: by last activity, latest first (a conversation without messages
 * goes by nothing and comes last), the room first among equals.
 */
export function byLastActivity<T extends { kind: 'room' | 'dm'; lastActivityAt: string | null }>(
  conversations: readonly T[],
): T[] {
  const time = (c: T) => (c.lastActivityAt ? Date.parse(c.lastActivityAt) || 0 : 0);
  return [...conversations].sort(
    (a, b) => time(b) - time(a) || (a.kind === 'room' ? -1 : b.kind === 'room' ? 1 : 0),
  );
}
