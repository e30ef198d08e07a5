import type { AppContext } from '../../app-context';
import type { SocketFeature } from '../../realtime/realtime-server';
import { MessagesService } from './messages.service';

/**
 * The chat on the socket: a reconnecting page names at join_ring the conversations it holds and the
 * highest sequence number of each, and the answer carries the messages it missed (`missed`), read
 * with the membership join_ring has just checked. A reconnection thus needs no get.php request per
 * conversation (a restarted instance's thousand pages would each make one, each with its own
 * access check). New messages themselves are pushed by the messages service (`new_message`).
 */
export function messagesSocketFeature(ctx: AppContext): SocketFeature {
  const service = new MessagesService(ctx);
  return {
    async joinAnswer(request, access) {
      if (!request.catchUp?.length) return {};
      return { missed: await service.missedSince(access, request.catchUp) };
    },
  };
}
