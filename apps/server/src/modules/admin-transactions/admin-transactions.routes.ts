import {
  ZAdminTransactionsQuery,
  transactionsCsvFilename,
  type TAdminTransactionsResponse,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin } from '../admins/admin.guard';
import { AdminTransactionsService } from './admin-transactions.service';

export async function adminTransactionsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminTransactionsService(ctx);

  // The list (JSON) and, with format=csv, the same filters as a CSV download without row limit.
  app.get(
    '/api/admin/transactions.php',
    { preHandler: requireAdmin(ctx, 'transactions', 'view') },
    async (request, reply): Promise<TAdminTransactionsResponse | string> => {
      const query = parseInput(ZAdminTransactionsQuery, request.query);
      if (query.format !== 'csv') return { success: true, ...(await service.list(query)) };

      const { csv, count } = await service.exportCsv(query);
      const { admin } = adminCaller(request);
      const meta = requestMeta(request);
      // Exporting customer data is recorded like a write.
      await ctx.systemLog.adminAction(admin, meta, 'Export des transactions (CSV)', {
        count,
        gateway: query.gateway ?? 'all',
        status: query.status ?? 'all',
        from: query.from,
        to: query.to,
      });
      const filename = transactionsCsvFilename(ctx.clock.now());
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${filename}"`)
        .header('Cache-Control', 'no-store')
        .send(csv);
    },
  );
}
