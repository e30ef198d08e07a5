import { MESSAGES } from '@securering/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { unauthorized } from '../../lib/app-error';
import { requireSession } from '../../plugins/auth';
import { CustomerRepository } from './customer.repository';

/** preHandler for customer routes: a live customer session of an active account. */
export function requireCustomer(ctx: AppContext) {
  const customers = new CustomerRepository(ctx.db);
  return async (request: FastifyRequest): Promise<void> => {
    const session = await requireSession(ctx.sessions, request, 'customer');
    const customer = await customers.findById(session.subject_id);
    if (!customer || customer.is_active !== 1) throw unauthorized(MESSAGES.sessionExpired);
    request.caller = { kind: 'customer', session, customer };
  };
}
