import type { AppContext } from '../app-context';
import { RingRepository } from '../modules/rings/ring.repository';
import { memberRoom } from './realtime-hub';
import type { SocketFeature, TypedServer } from './realtime-server';

/** Who is in a connected call (the calls feature); presence shows them `in_call`. */
export interface InCallSource {
  inCallMemberIds(ringId: string): Promise<Set<string>>;
}

/** Whether a member still has a joined socket on this instance (local rooms only, no Redis). */
export function holdsMemberLocally(io: TypedServer, memberId: string): boolean {
  const ids = io.of('/').adapter.rooms.get(memberRoom(memberId));
  if (!ids) return false;
  for (const id of ids) if (io.of('/').sockets.get(id)?.data.joined) return true;
  return false;
}

/**
 * Presence: a member is online while one of its sockets is in the Ring's room, `in_call` while it
 * is also in a connected call. Joining announces it to the Ring and sends the joiner who is online
 * and who is in a call; the last socket leaving records the last-seen time and announces the
 * member offline. The calls feature announces `in_call` and the return to `online`.
 *
 * Across instances (Redis), each instance also records the members it holds in the presence
 * registry, so that the members of an instance that dies are announced offline by the others
 * (sweepDeadInstances). A draining instance announces nobody offline: its clients are moving to
 * another instance, and the sweep after its registry entry expires catches those who do not.
 */
export function presenceFeature(ctx: AppContext, calls?: InCallSource): SocketFeature {
  const rings = new RingRepository(ctx.db);
  return {
    async onJoin(socket) {
      const { ringId, memberId } = socket.data;
      await Promise.all([
        rings.touchMember(memberId, ctx.clock.now().toISOString()),
        ctx.realtime.presenceRegistry?.hold(memberId, ringId),
      ]);
      const [online, inCall] = await Promise.all([
        ctx.realtime.onlineMemberIds(ringId),
        calls ? calls.inCallMemberIds(ringId) : Promise.resolve(new Set<string>()),
      ]);
      socket.to(`ring:${ringId}`).emit('presence_update', {
        ringId,
        userId: memberId,
        status: inCall.has(memberId) ? 'in_call' : 'online',
        lastSeen: null,
      });
      socket.emit('presence_state', {
        ringId,
        online: [...online],
        inCall: [...inCall].filter((id) => online.has(id)),
      });
    },
    async onDisconnect(socket, io) {
      const { ringId, memberId, joined } = socket.data;
      if (!joined || ctx.lifecycle.draining) return;
      const registry = ctx.realtime.presenceRegistry;
      if (registry && !holdsMemberLocally(io, memberId)) await registry.release(memberId);
      if (await ctx.realtime.isMemberConnected(memberId)) return;
      await announceOffline(ctx, rings, memberId, ringId);
    },
  };
}

async function announceOffline(
  ctx: AppContext,
  rings: RingRepository,
  memberId: string,
  ringId: string,
): Promise<void> {
  const lastSeen = ctx.clock.now().toISOString();
  await rings.touchMember(memberId, lastSeen);
  ctx.realtime.emitToRing(ringId, 'presence_update', { ringId, userId: memberId, status: 'offline', lastSeen });
}

/**
 * The presence-sweep job: members held by instances that stopped beating (killed, or drained and
 * gone) are announced offline to their Ring, unless they have a joined socket again somewhere.
 * Returns the members announced. A no-op without Redis (one instance: nobody else to tell).
 */
export async function sweepDeadInstances(ctx: AppContext): Promise<string[]> {
  const registry = ctx.realtime.presenceRegistry;
  if (!registry) return [];
  const rings = new RingRepository(ctx.db);
  const announced: string[] = [];
  for (const { memberId, ringId } of await registry.claimOrphans()) {
    if (await ctx.realtime.isMemberOnline(memberId)) continue;
    await announceOffline(ctx, rings, memberId, ringId);
    announced.push(memberId);
  }
  return announced;
}
