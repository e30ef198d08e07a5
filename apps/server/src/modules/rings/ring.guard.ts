import { MESSAGES } from '@securering/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { unauthorized } from '../../lib/app-error';
import { extractSessionToken, type RingCaller } from '../../plugins/auth';
import type { SessionRow } from '../sessions/session.repository';
import { RingRepository, type RingAccess, type RingMemberRow, type RingRow } from './ring.repository';

export interface RingMembership {
  member: RingMemberRow;
  ring: RingRow;
}

/**
 * A Ring serves its members while it is active and its owner is active with a current subscription
 * (the rule is written once, in RingRepository.findServiceableRing's query).
 */
export async function isRingServiceable(ctx: AppContext, ring: RingRow): Promise<boolean> {
  if (ring.is_active !== 1) return false;
  return Boolean(
    await new RingRepository(ctx.db).findServiceableRing(ring.id, ctx.clock.now().toISOString()),
  );
}

/** The membership behind a Ring session, while the member is active and the Ring serviceable. */
export async function loadActiveMembership(
  ctx: AppContext,
  memberId: string,
): Promise<RingMembership | undefined> {
  const repo = new RingRepository(ctx.db);
  const member = await repo.findMemberById(memberId);
  if (!member || member.status !== 'active') return undefined;
  const ring = await repo.findServiceableRing(member.ring_id, ctx.clock.now().toISOString());
  return ring ? { member, ring } : undefined;
}

/**
 * The Ring session `sessionId` while live, with its member (active) and the member's Ring
 * (serviceable), in one query: loadActiveMembership's rule and the session's, as a socket's join_ring
 * and its events' re-check ask them.
 */
export function findLiveRingAccess(ctx: AppContext, sessionId: string): Promise<RingAccess | undefined> {
  return new RingRepository(ctx.db).findRingAccessBySession(sessionId, ctx.clock.now().toISOString());
}

/** The caller behind a live Ring session, while its membership is active and the Ring serviceable. */
export async function ringCallerOf(ctx: AppContext, session: SessionRow): Promise<RingCaller> {
  const membership = await loadActiveMembership(ctx, session.subject_id);
  if (!membership) throw unauthorized(MESSAGES.sessionExpired);
  return { kind: 'ring', session, ...membership };
}

/**
 * preHandler for Ring room routes (bearer, or the HttpOnly cookie with its CSRF header on writes): a live Ring session of an active member of a serviceable Ring
 * (requireSession's then ringCallerOf's rules and answers, read in one query). No token → 401
 * "Non authentifié"; any other failure → 401 "Session expirée".
 */
export function requireRingMember(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = extractSessionToken(request, 'ring');
    if (!token) throw unauthorized(MESSAGES.notAuthenticated);
    const tokenHash = ctx.sessions.tokenHashOf(token);
    const now = ctx.clock.now();
    const access =
      tokenHash && (await new RingRepository(ctx.db).findRingAccess(tokenHash, now.toISOString()));
    if (!access) throw unauthorized(MESSAGES.sessionExpired);
    await ctx.sessions.touchIfStale(access.session, now);
    request.caller = { kind: 'ring', ...access };
  };
}
