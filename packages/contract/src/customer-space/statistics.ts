import { z } from 'zod';
import { successOf } from '../common';

const ZDayCount = z.object({ date: z.string(), count: z.number().int() });

/** GET /api/customer/ring-stats.php?ring_id=&days= — real figures for one Ring. */
export const ZRingStatsResponse = successOf({
  data: z.object({
    ringId: z.string(),
    days: z.number().int(),
    messagesPerDay: z.array(ZDayCount),
    activeMembersPerDay: z.array(ZDayCount),
    callsPerDay: z.array(ZDayCount),
    totals: z.object({
      messages: z.number().int(),
      calls: z.number().int(),
      members: z.number().int(),
      activeMembers: z.number().int(),
      files: z.number().int(),
    }),
    storage: z.object({ used: z.number(), allocated: z.number() }),
  }),
});
export type TRingStats = z.infer<typeof ZRingStatsResponse>['data'];
