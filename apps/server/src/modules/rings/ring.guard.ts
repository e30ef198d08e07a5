import { MESSAGES } from '@securering/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { unauthorized } from '../../lib/app-error';
import { requireSession } from '../../plugins/auth';
import type { SessionRow } from '../sessions/session.repository';
import { RingRepository, type RingMemberRow, type RingRow } from './ring.repository';

export interface RingMembership {
  member: RingMemberRow;
  ring: RingRow;
}

/** A member may use a Ring while both the membership and the Ring are active. */
export async function loadActiveMembership(
  repo: RingRepository,
  memberId: string,
): Promise<RingMembership | undefined> {
  const member = await repo.findMemberById(memberId);
  if (!member || member.status !== 'active') return undefined;
  const ring = await repo.findRingById(member.ring_id);
  if (!ring || ring.is_active !== 1) return undefined;
  return { member, ring };
}

/** preHandler for Ring room routes: a live Ring session of an active member of an active Ring. */
export function requireRingMember(ctx: AppContext) {
  const repo = new RingRepository(ctx.db);
  return async (request: FastifyRequest): Promise<void> => {
    const session: SessionRow = await requireSession(ctx.sessions, request, 'ring');
    const membership = await loadActiveMembership(repo, session.subject_id);
    if (!membership) throw unauthorized(MESSAGES.sessionExpired);
    request.caller = { kind: 'ring', session, ...membership };
  };
}
