import type { AppContext } from '../app-context';
import { RingRepository } from '../modules/rings/ring.repository';
import type { SocketFeature } from './realtime-server';

/** Who is in a connected call (the calls feature); presence shows them `in_call`. */
export interface InCallSource {
  inCallMemberIds(ringId: string): Promise<Set<string>>;
}

/**
 * Presence: a member is online while one of its sockets is in the Ring's room, `in_call` while it
 * is also in a connected call. Joining announces it to the Ring and sends the joiner who is online
 * and who is in a call; the last socket leaving records the last-seen time and announces the
 * member offline. The calls feature announces `in_call` and the return to `online`.
 */
export function presenceFeature(ctx: AppContext, calls?: InCallSource): SocketFeature {
  const rings = new RingRepository(ctx.db);
  return {
    async onJoin(socket) {
      const { ringId, memberId } = socket.data;
      await rings.touchMember(memberId, ctx.clock.now().toISOString());
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
    async onDisconnect(socket) {
      const { ringId, memberId, joined } = socket.data;
      if (!joined || (await ctx.realtime.isMemberConnected(memberId))) return;
      const lastSeen = ctx.clock.now().toISOString();
      await rings.touchMember(memberId, lastSeen);
      ctx.realtime.emitToRing(ringId, 'presence_update', {
        ringId,
        userId: memberId,
        status: 'offline',
        lastSeen,
      });
    },
  };
}
