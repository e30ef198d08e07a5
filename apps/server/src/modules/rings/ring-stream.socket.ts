import { ZRenewStreamToken } from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { SocketFeature } from '../../realtime/realtime-server';
import type { SocketEventBinder } from '../../realtime/socket-events';
import { STREAM_TOKEN_TTL_MS } from '../sessions/session.service';

/**
 * `renew_stream_token` events one member may send per minute. A page asks once per connection
 * and then every four minutes (RING_CONNECTION), so honest use stays far below.
 */
export const STREAM_TOKEN_RENEWALS_PER_MINUTE = 6;

/**
 * The spare stream token: a connected page takes the token of its next connection over its socket,
 * so that when its instance stops it reconnects without an HTTP call before the websocket (one
 * request fewer per page in a restart storm). The token is the same as mint-stream-token.php's:
 * single use, five minutes, bound to the socket's Ring session (it dies with it); the socket event
 * layer has checked the membership, the Ring and that session before this runs.
 */
export function ringStreamSocketFeature(ctx: AppContext, bind: SocketEventBinder): SocketFeature {
  return {
    onConnection(socket) {
      bind(
        socket,
        'renew_stream_token',
        { schema: ZRenewStreamToken, perMinute: STREAM_TOKEN_RENEWALS_PER_MINUTE },
        async (_input, { socket: { data } }, ack) => {
          const userAgent = socket.handshake.headers['user-agent'];
          // No client address: behind the load balancer the socket's peer is the balancer.
          const issued = await ctx.sessions.issueStreamToken(
            { id: data.sessionId, subject_id: data.memberId },
            { userAgent: typeof userAgent === 'string' ? userAgent : null },
          );
          ack({ ok: true, stream_token: issued.token, expires_in: Math.floor(STREAM_TOKEN_TTL_MS / 1000) });
        },
      );
    },
  };
}
