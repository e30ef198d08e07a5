import type { AppContext } from '../../app-context';
import type { SocketFeature } from '../../realtime/realtime-server';
import { MessagesService } from './messages.service';

/**
 * The chat on the socket: a reconnecting page names at join_ring the conversations it holds and the
 * highest sequence number of each, and the answer carries the messages it missed (`missed`), read
 * with the membership join_ring has just checked. A reconnection thus needs no get.php request per
 * conversation (a restarted instance's thousand pages would each make one, each with its own
 * access check). A room page may also ask for its conversations with their unread counts
 * (`conversations: true`), which it reads again at every join: list.php's answer, without the
 * request. New messages themselves are pushed by the messages service (`new_message`).
 */
export function messagesSocketFeature(ctx: AppContext): SocketFeature {
  const service = new MessagesService(ctx);
  return {
    async joinAnswer(request, access) {
      const [missed, conversations] = await Promise.all([
        request.catchUp?.length ? service.missedSince(access, request.catchUp) : undefined,
        request.conversations ? service.list(access) : undefined,
      ]);
      return { ...(missed ? { missed } : {}), ...(conversations ? { conversations } : {}) };
    },
  };
}
