import { RING_MESSAGES, type TRingStats } from '@securering/contract';
import type { AppContext } from '../../app-context';
import { notFound } from '../../lib/app-error';
import { DAY_MS } from '../../lib/clock';
import type { CustomerRow } from '../customers/customer.repository';
import { RingRepository } from '../rings/ring.repository';
import { RingStatsRepository, type DayCountRow, type TimeWindow } from './ring-stats.repository';

/** The periods the "Statistiques" tab offers, in days. */
export const RING_STATS_PERIODS = [7, 30, 90] as const;
export type RingStatsPeriod = (typeof RING_STATS_PERIODS)[number];
export const DEFAULT_RING_STATS_PERIOD: RingStatsPeriod = 30;

/** The last `days` UTC days ending with the day of `now`, oldest first, as 'YYYY-MM-DD'. */
export function lastUtcDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
}

/** From the first listed day at 00:00 UTC up to (excluding) the day after the last one. */
export function windowOf(days: string[]): TimeWindow {
  const first = days[0];
  const last = days[days.length - 1];
  if (!first || !last) throw new Error('A statistics window needs at least one day');
  return {
    fromIso: `${first}T00:00:00.000Z`,
    toIso: new Date(Date.parse(`${last}T00:00:00.000Z`) + DAY_MS).toISOString(),
  };
}

/** One entry per day, in the order of `days`; days without a row count 0. */
export function fillDays(days: string[], rows: DayCountRow[]): Array<{ date: string; count: number }> {
  const byDay = new Map(rows.map((r) => [r.day, r.count]));
  return days.map((date) => ({ date, count: byDay.get(date) ?? 0 }));
}

const sum = (series: Array<{ count: number }>) => series.reduce((total, d) => total + d.count, 0);

/** Real figures of one of the customer's Rings over the last days (spec 2, "Statistiques"). */
export class RingStatsService {
  private readonly rings: RingRepository;
  private readonly stats: RingStatsRepository;

  constructor(private readonly ctx: AppContext) {
    this.rings = new RingRepository(ctx.db);
    this.stats = new RingStatsRepository(ctx.db);
  }

  async ringStats(customer: CustomerRow, ringId: string, period: RingStatsPeriod): Promise<TRingStats> {
    // Another customer's Ring answers exactly like a missing one. No subscription check: a
    // customer whose subscription lapsed still sees the history of its Rings.
    const ring = await this.rings.findRingById(ringId);
    if (!ring || ring.customer_id !== customer.id) throw notFound(RING_MESSAGES.ringNotFound);

    const days = lastUtcDays(this.ctx.clock.now(), period);
    const window = windowOf(days);
    const [messages, activeMembers, calls, activeTotal, members, files] = await Promise.all([
      this.stats.messagesPerDay(ring.id, window),
      this.stats.activeMembersPerDay(ring.id, window),
      this.stats.callsPerDay(ring.id, window),
      this.stats.activeMembers(ring.id, window),
      this.stats.countMembers(ring.id),
      this.stats.files(ring.id),
    ]);
    const messagesPerDay = fillDays(days, messages);
    const callsPerDay = fillDays(days, calls);
    return {
      ringId: ring.id,
      days: period,
      messagesPerDay,
      activeMembersPerDay: fillDays(days, activeMembers),
      callsPerDay,
      totals: {
        messages: sum(messagesPerDay),
        calls: sum(callsPerDay),
        members,
        activeMembers: activeTotal,
        files: files.count,
      },
      storage: { used: files.bytes, allocated: Number(ring.storage_quota_bytes) },
    };
  }
}
