import { CHAT_MESSAGES, ZMessageRead, ZSendMessageEvent, type TSendMessageAck } from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { SocketFeature, TypedSocket } from '../../realtime/realtime-server';
import type { SocketEventBinder } from '../../realtime/socket-events';
import { AppError, invalidInput } from '../../lib/app-error';
import { MessagesService, SENDS_PER_MINUTE } from './messages.service';

/** A refusal of the messages service, as send.php would have answered it, for the socket's ack. */
function refusedAck(error: AppError): TSendMessageAck {
  const { code, currentEpoch, ephemeralSec, retryAfterSec } = error.extra as {
    code?: string;
    currentEpoch?: number;
    ephemeralSec?: number | null;
    retryAfterSec?: number;
  };
  return {
    ok: false,
    error: error.message,
    status: error.statusCode,
    ...(code !== undefined ? { code } : {}),
    ...(currentEpoch !== undefined ? { currentEpoch } : {}),
    ...(ephemeralSec !== undefined ? { ephemeralSec } : {}),
    ...(retryAfterSec !== undefined ? { retryAfterSec } : {}),
  };
}

/** `message_read` events one member may send per minute (a page sends one per batch it shows). */
export const READ_RECEIPTS_PER_MINUTE = 120;

/**
 * The chat on the socket: a reconnecting page names at join_ring the conversations it holds and the
 * highest sequence number of each, and the answer carries the messages it missed (`missed`), read
 * with the membership join_ring has just checked. A reconnection thus needs no get.php request per
 * conversation (a restarted instance's thousand pages would each make one, each with its own
 * access check). A room page may also ask for its conversations with their unread counts
 * (`conversations: true`), which it reads again at every join: list.php's answer, without the
 * request. New messages themselves are pushed by the messages service (`new_message`).
 * `message_read`: the page displayed ephemeral messages for the first time (their countdowns start;
 * see MessagesService.markDisplayed), after the socket event layer's checks.
 */
/**
 * Settles once the next packet of `socket` (join_ring's answer, sent right after joinAnswer) has
 * been handed to the network, or the socket is gone: the catch-up gate's place is held until then.
 */
function nextPacketWritten(socket: TypedSocket): Promise<void> {
  return new Promise((resolve) => {
    const conn = socket.conn;
    const done = () => {
      conn.off('packetCreate', onPacket);
      conn.off('close', done);
      resolve();
    };
    const onPacket = () => {
      conn.off('packetCreate', onPacket);
      conn.transport.once('drain', done);
    };
    conn.on('packetCreate', onPacket);
    conn.once('close', done);
  });
}

export function messagesSocketFeature(ctx: AppContext, bind: SocketEventBinder): SocketFeature {
  const service = new MessagesService(ctx);
  return {
    onConnection(socket) {
      // send.php over the socket (issue 30): the binder checked the body with the contract (a bad one
      // gets send.php's French error), the Ring, the room joined, this process's rate counter and
      // the membership (re-read at most a second old); the service checks the rest as for HTTP,
      // send.php's shared budget included (the member's one budget, one hit per message).
      bind(
        socket,
        'send_message',
        {
          schema: ZSendMessageEvent,
          perMinute: SENDS_PER_MINUTE,
          sharedBudget: false,
          invalidAck: (error) => refusedAck(invalidInput(error)),
        },
        async (input, { membership }, ack) => {
          try {
            ack({ ok: true, ...(await service.send(membership, input)) });
          } catch (error) {
            if (error instanceof AppError) ack(refusedAck(error));
            else throw error;
          }
        },
      );
      bind(
        socket,
        'message_read',
        { schema: ZMessageRead, perMinute: READ_RECEIPTS_PER_MINUTE },
        async (input, { membership }, ack) => {
          try {
            const reads = await service.markDisplayed(membership, input.conversationId, input.messageIds);
            ack({ ok: true, reads });
          } catch (error) {
            if (error instanceof AppError && error.statusCode === 404)
              ack({ ok: false, error: CHAT_MESSAGES.conversationNotFound });
            else throw error;
          }
        },
      );
    },
    async joinAnswer(request, access, socket, answered) {
      const [missed, conversations] = await Promise.all([
        request.catchUp?.length
          ? service.missedSince(access, request.catchUp, socket ? nextPacketWritten(socket) : undefined)
          : undefined,
        request.conversations ? service.list(access) : undefined,
      ]);
      // Once the answer is encoded, its envelopes are dropped (MessagesService.deliverCatchUp).
      if (missed && answered)
        void answered.then(() => {
          for (const conversation of missed) conversation.messages.length = 0;
        });
      return { ...(missed ? { missed } : {}), ...(conversations ? { conversations } : {}) };
    },
  };
}
