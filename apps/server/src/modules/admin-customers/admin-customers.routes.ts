import {
  ADMIN_CUSTOMER_MESSAGES,
  ZAdminCustomerParams,
  ZAdminCustomersQuery,
  ZCreateAdminCustomerRequest,
  ZCreateManualSubscriptionRequest,
  ZDeleteAdminCustomerRequest,
  ZUpdateAdminCustomerRequest,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { assertNotCommonPassword } from '../../lib/common-passwords';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin } from '../admins/admin.guard';
import { AdminCustomersService } from './admin-customers.service';

/** Back office "Clients" tab (spec 3 §2.4, §7 "Dashboard and customers"); module client_users. */
export async function adminCustomersRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminCustomersService(ctx);
  const M = ADMIN_CUSTOMER_MESSAGES;

  app.get(
    '/api/admin/customers.php',
    { preHandler: requireAdmin(ctx, 'client_users', 'view') },
    async (request) => {
      const { data, meta } = await service.list(parseInput(ZAdminCustomersQuery, request.query));
      return { success: true, data, meta };
    },
  );

  app.post(
    '/api/admin/customers.php',
    { preHandler: requireAdmin(ctx, 'client_users', 'create') },
    async (request) => {
      const input = parseInput(ZCreateAdminCustomerRequest, request.body);
      assertNotCommonPassword(input.password);
      const data = await service.create(adminCaller(request).admin, input, requestMeta(request));
      return { success: true, data, message: M.created };
    },
  );

  app.put(
    '/api/admin/customers.php',
    { preHandler: requireAdmin(ctx, 'client_users', 'edit') },
    async (request) => {
      const input = parseInput(ZUpdateAdminCustomerRequest, request.body);
      assertNotCommonPassword(input.new_password);
      const data = await service.update(adminCaller(request).admin, input, requestMeta(request));
      return { success: true, data, message: M.updated };
    },
  );

  app.delete(
    '/api/admin/customers.php',
    { preHandler: requireAdmin(ctx, 'client_users', 'delete') },
    async (request) => {
      const { id } = parseInput(ZDeleteAdminCustomerRequest, request.body);
      await service.remove(adminCaller(request).admin, id, requestMeta(request));
      return { success: true, message: M.deleted };
    },
  );

  app.get(
    '/api/admin/customers/:id/subscriptions',
    { preHandler: requireAdmin(ctx, 'client_users', 'view') },
    async (request) => {
      const { id } = parseInput(ZAdminCustomerParams, request.params);
      return { success: true, data: await service.subscriptions(id) };
    },
  );

  app.post(
    '/api/admin/customers/:id/create-subscription',
    { preHandler: requireAdmin(ctx, 'client_users', 'create') },
    async (request) => {
      const { id } = parseInput(ZAdminCustomerParams, request.params);
      const input = parseInput(ZCreateManualSubscriptionRequest, request.body);
      const data = await service.createSubscription(
        adminCaller(request).admin,
        id,
        input,
        requestMeta(request),
      );
      return { success: true, data, message: M.subscriptionCreated };
    },
  );

  app.get(
    '/api/admin/customers/:id/payments',
    { preHandler: requireAdmin(ctx, 'client_users', 'view') },
    async (request) => {
      const { id } = parseInput(ZAdminCustomerParams, request.params);
      return { success: true, ...(await service.payments(id)) };
    },
  );
}
