import { z } from 'zod';
import { successOf } from '../common';

/** GET /api/admin/stats.php — real figures for the console's cards and dashboard tab. */
export const ZAdminStats = z.object({
  totalCustomers: z.number().int(),
  activeSubscriptions: z.number().int(),
  /** Share of customers with an active subscription, in percent (0–100, one decimal). */
  conversionRate: z.number(),
  /** Completed payments of the current calendar month (UTC), in euros. */
  monthlyRevenue: z.number(),
  /** All completed payments ever, in euros. */
  totalRevenue: z.number(),
  transactionsThisMonth: z.number().int(),
  activeRings: z.number().int(),
  messagesLastMonth: z.number().int(),
  /** Bytes under DATA_DIR (database, Ring files, uploads, backups). */
  storageUsed: z.number(),
  /**
   * Free space on DATA_DIR's file system as this instance sees it (null when it cannot be read):
   * `low` below `warnFreeBytes` (the dashboard warns), `full` below `minFreeBytes`
   * (DATA_DIR_MIN_FREE_MB: /readyz fails and writes are refused with 507).
   */
  disk: z
    .object({
      freeBytes: z.number(),
      totalBytes: z.number(),
      minFreeBytes: z.number(),
      warnFreeBytes: z.number(),
      state: z.enum(['ok', 'low', 'full']),
    })
    .nullable(),
  /** Seconds since this server process started. */
  uptime: z.number(),
  /** Response times measured by this server over its recent requests, in milliseconds. */
  responseTime: z.object({ p50: z.number(), p95: z.number(), samples: z.number().int() }),
  errors24h: z.number().int(),
  failedLogins24h: z.number().int(),
  lastBackupAt: z.string().nullable(),
  https: z.boolean(),
  /** PAYMENT_TEST_MODE is on: the test provider can activate subscriptions without payment. */
  paymentTestMode: z.boolean(),
  /** An SMTP host is set: without one, mails are written to the server log instead of being sent. */
  smtpConfigured: z.boolean(),
  revenueByMonth: z.array(z.object({ month: z.string(), amount: z.number() })),
  newCustomersByDay: z.array(z.object({ date: z.string(), count: z.number().int() })),
  recentActivity: z.array(
    z.object({
      id: z.string(),
      created_at: z.string(),
      level: z.string(),
      category: z.string(),
      message: z.string(),
    }),
  ),
});
export type TAdminStats = z.infer<typeof ZAdminStats>;
export const ZAdminStatsResponse = successOf({ data: ZAdminStats });
