import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context';
import { presenceFeature } from '../realtime/presence';
import type { SocketFeature } from '../realtime/realtime-server';
import { createSocketEventBinder } from '../realtime/socket-events';
import { adminCustomersRoutes } from './admin-customers/admin-customers.routes';
import { adminEmailsRoutes } from './admin-emails/admin-emails.routes';
import { adminPlansRoutes } from './admin-plans/admin-plans.routes';
import { adminRealtimeRoutes } from './admin-realtime/admin-realtime.routes';
import { adminStatsRoutes } from './admin-stats/admin-stats.routes';
import { adminTransactionsRoutes } from './admin-transactions/admin-transactions.routes';
import { backupRoutes } from './backups/backups.routes';
import { ringFilesRoutes } from './ring-files/ring-files.routes';
import { callsFeature } from './calls/calls.feature';
import { callsRoutes } from './calls/calls.routes';
import { CallService } from './calls/calls.service';
import { adminLogsRoutes } from './system-logs/admin-logs.routes';
import { uploadRoutes } from './uploads/uploads.routes';
import { adminAuthRoutes } from './admins/admin-auth.routes';
import { adminUsersRoutes } from './admins/admin-users.routes';
import { contactRoutes } from './contact/contact.routes';
import { customerAuthRoutes } from './customers/customer-auth.routes';
import { dashboardRoutes } from './customer-space/dashboard.routes';
import { ringStatsRoutes } from './customer-space/ring-stats.routes';
import { ringJournalRoutes } from './customer-space/ring-journal.routes';
import { healthRoutes } from './health/health.routes';
import { metricsRoutes } from './metrics/metrics.routes';
import { notificationRoutes } from './notifications/notifications.routes';
import { planRoutes } from './plans/plans.routes';
import { subscriptionRoutes } from './subscriptions/subscriptions.routes';
import { webhookRoutes } from './subscriptions/webhooks.routes';
import { messagesRoutes } from './messages/messages.routes';
import { messageDeletionRoutes } from './messages/message-deletion.routes';
import { webPushRoutes } from './web-push/web-push.routes';
import { membershipLogRoutes } from './membership-log/membership-log.routes';
import { ringKeysRoutes } from './ring-keys/ring-keys.routes';
import { messagesSocketFeature } from './messages/messages.socket';
import { readingSignalsSocketFeature } from './messages/reading-signals.socket';
import { ringKeysSocketFeature } from './ring-keys/ring-keys.socket';
import { ringStreamSocketFeature } from './rings/ring-stream.socket';
import { customerRingsRoutes } from './rings/customer-rings.routes';
import { ringAccessRoutes } from './rings/ring-access.routes';
import { ringStreamRoutes } from './rings/ring-stream.routes';
import { settingsRoutes } from './settings/settings.routes';
import { clientLogRoutes } from './system-logs/client-log.routes';

export type RouteModule = (app: FastifyInstance, ctx: AppContext) => Promise<void>;

/** Every HTTP feature of the server. A new feature adds its routes function here. */
export const ROUTE_MODULES: RouteModule[] = [
  healthRoutes,
  metricsRoutes,
  settingsRoutes,
  adminAuthRoutes,
  clientLogRoutes,
  ringStreamRoutes,
  customerAuthRoutes,
  contactRoutes,
  planRoutes,
  subscriptionRoutes,
  webhookRoutes,
  dashboardRoutes,
  ringStatsRoutes,
  ringJournalRoutes,
  customerRingsRoutes,
  ringAccessRoutes,
  notificationRoutes,
  adminUsersRoutes,
  adminStatsRoutes,
  adminCustomersRoutes,
  adminPlansRoutes,
  adminTransactionsRoutes,
  adminEmailsRoutes,
  adminLogsRoutes,
  backupRoutes,
  uploadRoutes,
  ringFilesRoutes,
  adminRealtimeRoutes,
  ringKeysRoutes,
  membershipLogRoutes,
  messagesRoutes,
  messageDeletionRoutes,
  webPushRoutes,
  callsRoutes,
];

/**
 * Socket handlers added by features (presence, calls, keys, spare stream tokens, the chat's catch-up
 * in join_ring's answer) on each authenticated connection.
 * Every client event goes through the one binder: contract validation, Ring check, rate limit and
 * membership re-check before feature code runs (realtime/socket-events.ts).
 */
export function buildSocketFeatures(ctx: AppContext): SocketFeature[] {
  const bind = createSocketEventBinder(ctx);
  const calls = new CallService(ctx);
  return [
    presenceFeature(ctx, calls),
    callsFeature(bind, calls),
    ringKeysSocketFeature(ctx, bind),
    ringStreamSocketFeature(ctx, bind),
    messagesSocketFeature(ctx, bind),
    readingSignalsSocketFeature(ctx, bind),
  ];
}
