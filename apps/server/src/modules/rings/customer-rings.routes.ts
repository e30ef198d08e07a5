import {
  RING_MESSAGES,
  ZCreateRingRequest,
  ZDeleteRingUserRequest,
  RING_USER_API_PATHS,
  ZInviteRingUserRequest,
  ZResendRingInvitationRequest,
  ZRingUsersQuery,
  ZUpdateRingRequest,
  ZUpdateRingUserStatusRequest,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { customerCaller } from '../../plugins/auth';
import { requireCustomer } from '../customers/customer.guard';
import { CustomerRingsService } from './customer-rings.service';

const ZRingQuery = z.object({ ring_id: z.string().trim().max(64).optional() });

export async function customerRingsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new CustomerRingsService(ctx);
  const preHandler = requireCustomer(ctx);

  app.get('/api/customer/rings.php', { preHandler }, async (request) => {
    const { customer } = customerCaller(request);
    const { ring_id } = parseInput(ZRingQuery, request.query);
    if (ring_id) return { success: true, data: await service.detail(customer, ring_id) };
    return { success: true, data: await service.list(customer) };
  });

  app.post('/api/customer/rings.php', { preHandler }, async (request) => {
    const { name } = parseInput(ZCreateRingRequest, request.body);
    const id = await service.create(customerCaller(request).customer, name);
    return { success: true, data: { id }, message: RING_MESSAGES.ringCreated };
  });

  app.put('/api/customer/rings.php', { preHandler }, async (request) => {
    const input = parseInput(ZUpdateRingRequest, request.body);
    return {
      success: true,
      data: await service.update(customerCaller(request).customer, input),
      message: RING_MESSAGES.settingsSaved,
    };
  });

  app.get('/api/customer/ring-users.php', { preHandler }, async (request) => {
    const { ring_id } = parseInput(ZRingUsersQuery, request.query);
    return { success: true, data: await service.users(customerCaller(request).customer, ring_id) };
  });

  app.post('/api/customer/ring-users.php', { preHandler }, async (request) => {
    const result = await service.invite(
      customerCaller(request).customer,
      parseInput(ZInviteRingUserRequest, request.body),
    );
    return { success: true, data: result.user, message: result.message, invite_url: result.inviteUrl };
  });

  app.post(RING_USER_API_PATHS.resendInvitation, { preHandler }, async (request) => {
    const { user_id } = parseInput(ZResendRingInvitationRequest, request.body);
    const result = await service.resendInvitation(customerCaller(request).customer, user_id);
    return { success: true, data: result.user, message: result.message, invite_url: result.inviteUrl };
  });

  app.patch('/api/customer/ring-users.php', { preHandler }, async (request) => {
    const { user_id, status } = parseInput(ZUpdateRingUserStatusRequest, request.body);
    const result = await service.setUserStatus(customerCaller(request).customer, user_id, status);
    return { success: true, data: result.user, message: result.message };
  });

  app.delete('/api/customer/ring-users.php', { preHandler }, async (request) => {
    const { user_id } = parseInput(ZDeleteRingUserRequest, request.body);
    await service.removeUser(customerCaller(request).customer, user_id);
    return { success: true, message: RING_MESSAGES.userRemoved };
  });
}
