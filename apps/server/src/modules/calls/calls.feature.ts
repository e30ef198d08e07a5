import { ZCallAction, ZCallInvite, ZRtcSignal } from '@securering/contract';
import { AppError } from '../../lib/app-error';
import type { SocketFeature } from '../../realtime/realtime-server';
import type { SocketAck, SocketEventBinder } from '../../realtime/socket-events';
import type { CallService, CallSignalEvent } from './calls.service';

/** Events one member may send per minute, per event name (socket binder, per instance). */
export const CALL_EVENT_LIMITS = {
  call_invite: 20,
  call_accept: 60,
  call_reject: 60,
  call_cancel: 60,
  call_hangup: 60,
  call_connected: 60,
  call_offer: 60,
  call_answer: 60,
  // Trickle ICE sends a candidate per address and transport, again on each ICE restart.
  ice_candidate: 600,
} as const;

/** Answers the ack with the service's result, or with its French refusal. */
async function answer(ack: SocketAck, run: () => Promise<object | void>): Promise<void> {
  try {
    const result = await run();
    ack({ ok: true, ...(result ?? {}) });
  } catch (error) {
    if (error instanceof AppError) ack({ ok: false, error: error.message });
    else throw error;
  }
}

/**
 * Call signalling on the socket (spec 2 §7): every client event goes through the binder (contract
 * schema, own Ring, joined socket, rate limit, fresh membership) and then the call service, which
 * checks the member takes part in the call. A member whose last socket goes ends its calls.
 */
export function callsFeature(bind: SocketEventBinder, calls: CallService): SocketFeature {
  return {
    onConnection(socket) {
      bind(
        socket,
        'call_invite',
        { schema: ZCallInvite, perMinute: CALL_EVENT_LIMITS.call_invite },
        (input, { membership }, ack) => answer(ack, () => calls.invite(membership, input, socket.id)),
      );
      bind(
        socket,
        'call_accept',
        { schema: ZCallAction, perMinute: CALL_EVENT_LIMITS.call_accept },
        (input, { membership }, ack) => answer(ack, () => calls.accept(membership, input, socket.id)),
      );
      for (const event of ['call_reject', 'call_cancel', 'call_hangup'] as const)
        bind(
          socket,
          event,
          { schema: ZCallAction, perMinute: CALL_EVENT_LIMITS[event] },
          (input, { membership }, ack) => answer(ack, () => calls.leave(membership, input, socket.id)),
        );
      bind(
        socket,
        'call_connected',
        { schema: ZCallAction, perMinute: CALL_EVENT_LIMITS.call_connected },
        (input, { membership }, ack) => answer(ack, () => calls.connected(membership, input)),
      );
      for (const event of ['call_offer', 'call_answer', 'ice_candidate'] as const satisfies CallSignalEvent[])
        bind(
          socket,
          event,
          { schema: ZRtcSignal, perMinute: CALL_EVENT_LIMITS[event] },
          (input, { membership }, ack) => answer(ack, () => calls.relay(membership, event, input)),
        );
    },
    async onDisconnect(socket) {
      await calls.socketLost(socket.data.memberId);
    },
  };
}
