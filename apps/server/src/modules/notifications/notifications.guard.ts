import { MESSAGES } from '@securering/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { AppError, unauthorized } from '../../lib/app-error';
import { extractAnySessionToken } from '../../plugins/auth';
import { customerCallerOf } from '../customers/customer.guard';
import { CustomerRepository } from '../customers/customer.repository';
import { ringCallerOf } from '../rings/ring.guard';
import type { NotificationOwnerType } from './notification-settings.repository';

export interface NotificationOwner {
  type: NotificationOwnerType;
  id: string;
}

/**
 * preHandler for the notification settings: a live customer session of an active account, or a
 * live Ring session of an active member of an active Ring. Other audiences are refused.
 */
export function requireCustomerOrMember(ctx: AppContext) {
  const customers = new CustomerRepository(ctx.db);
  return async (request: FastifyRequest): Promise<void> => {
    const presented = extractAnySessionToken(request, ['customer', 'ring']);
    if (!presented) throw unauthorized(MESSAGES.notAuthenticated);
    const { token, audience } = presented;

    const customerSession = audience !== 'ring' ? await ctx.sessions.verify('customer', token) : undefined;
    if (customerSession) {
      request.caller = await customerCallerOf(customers, customerSession);
      return;
    }

    const ringSession = audience !== 'customer' ? await ctx.sessions.verify('ring', token) : undefined;
    if (ringSession) {
      request.caller = await ringCallerOf(ctx, ringSession);
      return;
    }

    throw unauthorized(MESSAGES.sessionExpired);
  };
}

/**
 * Whose settings a request reads or writes, once requireCustomerOrMember has run: one record per
 * person — a Ring's owner member is its customer, so the customer space and the room (of every
 * Ring the customer owns) edit the same settings; any other member has its own.
 */
export function notificationOwner(request: FastifyRequest): NotificationOwner {
  const caller = request.caller;
  if (caller?.kind === 'customer') return { type: 'customer', id: caller.customer.id };
  if (caller?.kind === 'ring') {
    const { member } = caller;
    return member.role === 'owner' && member.customer_id
      ? { type: 'customer', id: member.customer_id }
      : { type: 'member', id: member.id };
  }
  // A route that reads the owner without the guard is a programming error, not a client error.
  throw new AppError(500, MESSAGES.internalError);
}
