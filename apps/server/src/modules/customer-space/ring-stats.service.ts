import { RING_MESSAGES, type TRingStats } from '@securering/contract';
import type { AppContext } from '../../app-context';
import { notFound } from '../../lib/app-error';
import { fillDays, lastUtcDays, windowOf } from '../../lib/utc-days';
import type { CustomerRow } from '../customers/customer.repository';
import { RingRepository } from '../rings/ring.repository';
import { RingStatsRepository } from './ring-stats.repository';

/** The periods the "Statistiques" tab offers, in days. */
export const RING_STATS_PERIODS = [7, 30, 90] as const;
export type RingStatsPeriod = (typeof RING_STATS_PERIODS)[number];
export const DEFAULT_RING_STATS_PERIOD: RingStatsPeriod = 30;

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
