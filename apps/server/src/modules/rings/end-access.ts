import type { AppContext } from '../../app-context';
import { SubscriptionRepository } from '../subscriptions/subscription.repository';
import { RingRepository } from './ring.repository';

/**
 * Ends the access of Ring members now: their Ring sessions and the stream tokens those minted are
 * revoked, and their sockets closed on every instance (the socket.io adapter carries the order).
 * Member deactivation calls it with one member; customer deactivation, deletion and a lapsed
 * subscription with every member of the customer's Rings.
 */
export async function endMembersAccess(ctx: AppContext, memberIds: readonly string[]): Promise<void> {
  if (memberIds.length === 0) return;
  await ctx.sessions.revokeAllForSubjects(['ring', 'stream'], [...memberIds]);
  for (const memberId of memberIds) ctx.realtime.disconnectMember(memberId);
}

/** Ends one member's access (its sessions, stream tokens and sockets). */
export function endMemberAccess(ctx: AppContext, memberId: string): Promise<void> {
  return endMembersAccess(ctx, [memberId]);
}

/** Ends the access of every member of every Ring the customer owns; returns how many members. */
export async function endRingAccessOfCustomer(ctx: AppContext, customerId: string): Promise<number> {
  const memberIds = await new RingRepository(ctx.db).findMemberIdsOfCustomerRings(customerId);
  await endMembersAccess(ctx, memberIds);
  return memberIds.length;
}

/**
 * After a subscription ended (expired, suspended, cancelled by the provider): when the customer is
 * left without a current subscription its Rings stop serving, so their members' access ends now.
 */
export async function endRingAccessIfUnsubscribed(ctx: AppContext, customerId: string): Promise<void> {
  const current = await new SubscriptionRepository(ctx.db).findCurrent(
    customerId,
    ctx.clock.now().toISOString(),
  );
  if (!current) await endRingAccessOfCustomer(ctx, customerId);
}

/**
 * After the customer's password was reset or changed: every session of that person ends, in every
 * audience — its customer sessions and, since it signs in to its own Rings with the same password,
 * the Ring sessions, stream tokens and sockets of its owner memberships.
 */
export async function endCustomerSessions(ctx: AppContext, customerId: string): Promise<void> {
  await ctx.sessions.revokeAllFor('customer', customerId);
  await endMembersAccess(ctx, await new RingRepository(ctx.db).findOwnerMemberIds(customerId));
}
