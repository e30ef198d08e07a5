import {
  CHAT_API_PATHS,
  CHAT_MESSAGES,
  MESSAGE_PAGE,
  ZConversationsResponse,
  ZCreateDmResponse,
  ZGetMessagesResponse,
  ZMarkReadResponse,
  ZSendMessageAckOk,
  ZSendMessageResponse,
  type TGetMessagesResponse,
  type TSendMessageRequest,
  type TSentMessage,
} from '@securering/contract';
import { ApiError, apiRequest } from '@/lib/api-client';
import type { RingSocket } from '@/lib/realtime';

/** The chat's server calls (spec 2 §7), over the Ring session. */
export interface ChatApi {
  getMessages(query: {
    conversationId: string;
    since?: number;
    before?: number;
    limit?: number;
  }): Promise<TGetMessagesResponse>;
  /** The stored message; `rotationSoon` when this browser should rotate ahead. */
  send(body: TSendMessageRequest): Promise<TSentMessage>;
}

export const chatApi: ChatApi = {
  getMessages: ({ conversationId, since, before, limit = MESSAGE_PAGE.default }) => {
    const params = new URLSearchParams({ conversation_id: conversationId, limit: String(limit) });
    if (since !== undefined) params.set('since', String(since));
    if (before !== undefined) params.set('before', String(before));
    return apiRequest(`${CHAT_API_PATHS.get}?${params.toString()}`, {
      auth: 'ring',
      schema: ZGetMessagesResponse,
      cache: 'no-store',
      fallbackError: CHAT_MESSAGES.loadFailed,
      networkError: 'Erreur de connexion',
    });
  },
  send: async (body) => {
    const { message, rotationSoon } = await apiRequest(CHAT_API_PATHS.send, {
      method: 'POST',
      auth: 'ring',
      body,
      schema: ZSendMessageResponse,
      fallbackError: CHAT_MESSAGES.sendFailed,
      networkError: 'Erreur de connexion',
    });
    return rotationSoon ? { message, rotationSoon } : { message };
  },
};

/** How long a send waits for the socket's acknowledgement before send.php carries it. */
export const SOCKET_SEND_TIMEOUT_MS = 10_000;

/** What a socket-first send needs of the room's connection. */
export interface ChatSocketLink {
  /** The room's socket if it is connected and has joined the Ring's room now, else null. */
  joinedSocket(): Pick<RingSocket, 'timeout'> | null;
  ringId(): string;
}

/**
 * A refusal the messages service made (`ok: false` with send.php's status), as send.php's error
 * and body; undefined for anything else (a refusal before the service has no status).
 */
function serviceRefusal(
  answer: unknown,
): { error: string; status: number; body: Record<string, unknown> } | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { ok, status, ...body } = answer as Record<string, unknown>;
  if (ok !== false || typeof body.error !== 'string') return undefined;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)
    return undefined;
  return { error: body.error, status, body };
}

/**
 * The chat's calls with each send over the room's socket while it has joined the Ring's room
 * (`send_message` with an acknowledgement, issue 30: no HTTP request, no session look-up per
 * message; the server checks what send.php checks), through send.php otherwise. A refusal of the
 * messages service carries send.php's status and is thrown as send.php's answer would be (a 409
 * re-encrypts, a 429 waits…). A socket that does not answer in time, drops, or refuses before the
 * service (not joined yet, its own rate counter, a membership to check again, a failure) hands the
 * same body to send.php: the server stores a client message id once, so a message both paths
 * carried is stored and numbered once, and send.php answers it again.
 */
export function socketFirstChatApi(link: ChatSocketLink, http: ChatApi = chatApi): ChatApi {
  return {
    getMessages: (query) => http.getMessages(query),
    send: async (body) => {
      const socket = link.joinedSocket();
      if (!socket) return http.send(body);
      let answer: unknown;
      try {
        answer = await socket
          .timeout(SOCKET_SEND_TIMEOUT_MS)
          .emitWithAck('send_message', { ...body, ringId: link.ringId() });
      } catch {
        return http.send(body);
      }
      const sent = ZSendMessageAckOk.safeParse(answer);
      if (sent.success) {
        const { message, rotationSoon } = sent.data;
        return rotationSoon ? { message, rotationSoon } : { message };
      }
      const refused = serviceRefusal(answer);
      if (!refused) return http.send(body);
      throw new ApiError(refused.error, refused.status, refused.body);
    },
  };
}

/** POST create-dm.php: the private conversation with `peerId` (the same whoever asks first). */
export async function createDm(peerId: string): Promise<string> {
  const answer = await apiRequest(CHAT_API_PATHS.createDm, {
    method: 'POST',
    auth: 'ring',
    body: { peer_user_id: peerId },
    schema: ZCreateDmResponse,
    fallbackError: CHAT_MESSAGES.dmFailed,
  });
  return answer.conversation_id;
}

/** GET list.php: the room and the member's private conversations with unread counts. */
export function listConversations(signal?: AbortSignal) {
  return apiRequest(CHAT_API_PATHS.list, {
    auth: 'ring',
    schema: ZConversationsResponse,
    cache: 'no-store',
    ...(signal ? { signal } : {}),
  });
}

/** POST read.php: read up to `seq`. */
export function markRead(conversationId: string, seq: number) {
  return apiRequest(CHAT_API_PATHS.read, {
    method: 'POST',
    auth: 'ring',
    body: { conversation_id: conversationId, seq },
    schema: ZMarkReadResponse,
  });
}
