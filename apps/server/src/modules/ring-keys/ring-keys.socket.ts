import { ZRequestKeys } from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { SocketFeature } from '../../realtime/realtime-server';
import type { SocketEventBinder } from '../../realtime/socket-events';
import { RingKeysService } from './ring-keys.service';

/** `request_keys` events one member may send per minute. */
export const REQUEST_KEYS_PER_MINUTE = 20;

/**
 * Key sharing without anyone sending a message first: when a member with published keys joins its
 * Ring's room lacking epoch keys, or asks with `request_keys`, up to two online members who hold
 * them are nudged (`keys_changed` reason `needed`) and their browsers wrap the keys for it. Works
 * across instances: who is online and the emits go through the socket.io adapter. A join that asks
 * for it (`keyRevision: true`) is answered with the Ring's key revision, so a page that reconnects
 * reads its key state again only if something changed while it was away.
 */
export function ringKeysSocketFeature(ctx: AppContext, bind: SocketEventBinder): SocketFeature {
  const keys = new RingKeysService(ctx);
  return {
    onConnection(socket) {
      bind(
        socket,
        'request_keys',
        { schema: ZRequestKeys, perMinute: REQUEST_KEYS_PER_MINUTE },
        async (_input, { membership }, ack) => {
          const nudged = await keys.nudgeHolders(membership.ring.id, membership.member.id);
          ack({ ok: true, nudged });
        },
      );
    },
    async onJoin(socket) {
      await keys.nudgeHolders(socket.data.ringId, socket.data.memberId);
    },
    // Read after the socket entered the Ring's room: a change after it comes as keys_changed.
    async joinAnswer(request, access) {
      if (!request.keyRevision) return {};
      const keyRevision = await keys.keyRevision(access.ring.id);
      return keyRevision === undefined ? {} : { keyRevision };
    },
  };
}
