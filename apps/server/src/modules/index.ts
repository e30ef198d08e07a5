import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context';
import { presenceFeature } from '../realtime/presence';
import type { SocketFeature } from '../realtime/realtime-server';
import { adminAuthRoutes } from './admins/admin-auth.routes';
import { contactRoutes } from './contact/contact.routes';
import { customerAuthRoutes } from './customers/customer-auth.routes';
import { dashboardRoutes } from './customer-space/dashboard.routes';
import { ringStatsRoutes } from './customer-space/ring-stats.routes';
import { healthRoutes } from './health/health.routes';
import { notificationRoutes } from './notifications/notifications.routes';
import { planRoutes } from './plans/plans.routes';
import { subscriptionRoutes } from './subscriptions/subscriptions.routes';
import { webhookRoutes } from './subscriptions/webhooks.routes';
import { customerRingsRoutes } from './rings/customer-rings.routes';
import { ringAccessRoutes } from './rings/ring-access.routes';
import { ringStreamRoutes } from './rings/ring-stream.routes';
import { settingsRoutes } from './settings/settings.routes';
import { clientLogRoutes } from './system-logs/client-log.routes';

export type RouteModule = (app: FastifyInstance, ctx: AppContext) => Promise<void>;

/** Every HTTP feature of the server. A new feature adds its routes function here. */
export const ROUTE_MODULES: RouteModule[] = [
  healthRoutes,
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
  customerRingsRoutes,
  ringAccessRoutes,
  notificationRoutes,
];

/** Socket handlers added by features (chat, presence, calls) on each authenticated connection. */
export function buildSocketFeatures(ctx: AppContext): SocketFeature[] {
  return [presenceFeature(ctx)];
}
