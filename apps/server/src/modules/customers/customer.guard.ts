import { MESSAGES } from '@securering/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { unauthorized } from '../../lib/app-error';
import { requireSession, type CustomerCaller } from '../../plugins/auth';
import type { SessionRow } from '../sessions/session.repository';
import { CustomerRepository } from './customer.repository';

/** The caller behind a live customer session, while the account exists and is active. */
export async function customerCallerOf(
  customers: CustomerRepository,
  session: SessionRow,
): Promise<CustomerCaller> {
  const customer = await customers.findById(session.subject_id);
  if (!customer || customer.is_active !== 1) throw unauthorized(MESSAGES.sessionExpired);
  return { kind: 'customer', session, customer };
}

/** preHandler for customer routes: a live customer session of an active account. */
export function requireCustomer(ctx: AppContext) {
  const customers = new CustomerRepository(ctx.db);
  return async (request: FastifyRequest): Promise<void> => {
    const session = await requireSession(ctx.sessions, request, 'customer');
    request.caller = await customerCallerOf(customers, session);
  };
}
