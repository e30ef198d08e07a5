import { RING_MESSAGES } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { customerCaller } from '../../plugins/auth';
import { requireCustomer } from '../customers/customer.guard';
import {
  DEFAULT_RING_STATS_PERIOD,
  RING_STATS_PERIODS,
  RingStatsService,
  type RingStatsPeriod,
} from './ring-stats.service';

export const INVALID_PERIOD_MESSAGE = 'Période invalide';

const PERIOD_VALUES = RING_STATS_PERIODS.map(String) as [string, ...string[]];

const ZRingStatsQuery = z.object({
  ring_id: z
    .string({ error: RING_MESSAGES.noRingSelected })
    .trim()
    .min(1, RING_MESSAGES.noRingSelected)
    .max(64),
  days: z
    .enum(PERIOD_VALUES, { error: INVALID_PERIOD_MESSAGE })
    .optional()
    .transform((v) => (v === undefined ? DEFAULT_RING_STATS_PERIOD : (Number(v) as RingStatsPeriod))),
});

export async function ringStatsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new RingStatsService(ctx);
  app.get('/api/customer/ring-stats.php', { preHandler: requireCustomer(ctx) }, async (request) => {
    const { ring_id, days } = parseInput(ZRingStatsQuery, request.query);
    return { success: true, data: await service.ringStats(customerCaller(request).customer, ring_id, days) };
  });
}
