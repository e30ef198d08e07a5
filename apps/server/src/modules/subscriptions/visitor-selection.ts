import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { newId } from '../../lib/ids';
import { hashToken } from '../../lib/tokens';
import { SubscriptionRepository } from './subscription.repository';

/** Anonymous visitors keep a plan choice in this cookie (httpOnly, a random token) until they sign up. */
export const VISITOR_COOKIE = 'sr_selection';

/** The hash of the visitor token the request carries, or undefined without a well-formed one. */
export function visitorHashOf(request: FastifyRequest): string | undefined {
  const existing = request.cookies[VISITOR_COOKIE];
  return existing && /^[A-Za-z0-9_-]{20,64}$/.test(existing) ? hashToken(existing) : undefined;
}

/**
 * A new account takes the plan the visitor chose before registering (« Commencer » on the home
 * page), so that the choice is there after email verification, in whatever browser the link is
 * opened. Only ever called for an account created by this very request, never for a known address.
 */
export async function adoptVisitorSelection(
  ctx: AppContext,
  customerId: string,
  visitorHash: string | undefined,
): Promise<void> {
  if (!visitorHash) return;
  const repo = new SubscriptionRepository(ctx.db);
  const visitor = await repo.findVisitorSelection(visitorHash);
  if (!visitor) return;
  const { plan_id, billing_cycle, video_option } = visitor;
  await repo.upsertSelection(
    { customerId },
    { plan_id, billing_cycle, video_option },
    newId(),
    ctx.clock.now().toISOString(),
  );
}
