import { MESSAGES } from '@securering/contract';
import type { FastifyRequest } from 'fastify';
import type {
  AdminsTable,
  CustomersTable,
  RingMembersTable,
  RingsTable,
  SessionAudience,
} from '../db/schema';
import { AppError, unauthorized } from '../lib/app-error';
import type { SessionService } from '../modules/sessions/session.service';
import type { SessionRow } from '../modules/sessions/session.repository';

export type AdminCaller = { kind: 'admin'; session: SessionRow; admin: AdminsTable };
export type CustomerCaller = { kind: 'customer'; session: SessionRow; customer: CustomersTable };
export type RingCaller = { kind: 'ring'; session: SessionRow; member: RingMembersTable; ring: RingsTable };
export type Caller = AdminCaller | CustomerCaller | RingCaller;

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/** The bearer token of a request, if any. Only the Authorization header is accepted. */
export function extractBearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Resolves the session of one audience: no token → 401 "Non authentifié";
 * unknown, expired, revoked or other-audience token → 401 "Session expirée".
 */
export async function requireSession(
  sessions: SessionService,
  request: FastifyRequest,
  audience: SessionAudience,
): Promise<SessionRow> {
  const token = extractBearer(request);
  if (!token) throw unauthorized(MESSAGES.notAuthenticated);
  const session = await sessions.verify(audience, token);
  if (!session) throw unauthorized(MESSAGES.sessionExpired);
  return session;
}

function callerOf<K extends Caller['kind']>(request: FastifyRequest, kind: K): Extract<Caller, { kind: K }> {
  const caller = request.caller;
  // A route that reads a caller without its guard is a programming error, not a client error.
  if (!caller || caller.kind !== kind) throw new AppError(500, MESSAGES.internalError);
  return caller as Extract<Caller, { kind: K }>;
}

export const adminCaller = (request: FastifyRequest) => callerOf(request, 'admin');
export const customerCaller = (request: FastifyRequest) => callerOf(request, 'customer');
export const ringCaller = (request: FastifyRequest) => callerOf(request, 'ring');

export function requestMeta(request: FastifyRequest): { ip: string; userAgent: string | null } {
  const ua = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof ua === 'string' ? ua.slice(0, 500) : null };
}
