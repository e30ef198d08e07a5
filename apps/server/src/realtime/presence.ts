import type { AppContext } from '../app-context';
import { RingRepository } from '../modules/rings/ring.repository';
import type { SocketFeature } from './realtime-server';

/**
 * Presence: a member is online while one of its sockets is in the Ring's room. Joining announces
 * it to the Ring and sends the joiner who is online; the last socket leaving records the last-seen
 * time and announces the member offline.
 */
export function presenceFeature(ctx: AppContext): SocketFeature {
  const rings = new RingRepository(ctx.db);
  return {
    async onJoin(socket) {
      const { ringId, memberId } = socket.data;
      await rings.touchMember(memberId, ctx.clock.now().toISOString());
      socket
        .to(`ring:${ringId}`)
        .emit('presence_update', { ringId, userId: memberId, status: 'online', lastSeen: null });
      socket.emit('presence_state', { ringId, online: [...(await ctx.realtime.onlineMemberIds(ringId))] });
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
