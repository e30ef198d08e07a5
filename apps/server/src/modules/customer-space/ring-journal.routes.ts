import { RING_JOURNAL_MESSAGES, RING_MESSAGES, type TRingJournal } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { customerCaller } from '../../plugins/auth';
import { requireCustomer } from '../customers/customer.guard';
import { RingJournalService } from './ring-journal.service';

/** Pages beyond this are refused (an export gives the newest entries at once). */
const MAX_PAGE = 200;

const ZRingJournalQuery = z.object({
  ring_id: z
    .string({ error: RING_MESSAGES.noRingSelected })
    .trim()
    .min(1, RING_MESSAGES.noRingSelected)
    .max(64),
  page: z
    .string()
    .regex(/^\d{1,4}$/, RING_JOURNAL_MESSAGES.invalidPage)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, RING_JOURNAL_MESSAGES.invalidPage)
        .max(MAX_PAGE, RING_JOURNAL_MESSAGES.invalidPage),
    )
    .optional(),
  export: z.literal('1').optional(),
});

/** GET /api/customer/ring-journal.php: « Journal du Ring » of one of the customer's Rings. */
export async function ringJournalRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new RingJournalService(ctx);
  app.get(
    '/api/customer/ring-journal.php',
    { preHandler: requireCustomer(ctx) },
    async (request): Promise<{ success: true; data: TRingJournal }> => {
      const query = parseInput(ZRingJournalQuery, request.query);
      const view = query.export ? ({ export: true } as const) : { page: query.page ?? 1 };
      return {
        success: true,
        data: await service.ringJournal(customerCaller(request).customer, query.ring_id, view),
      };
    },
  );
}
