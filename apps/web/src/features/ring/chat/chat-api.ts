import {
  CHAT_API_PATHS,
  CHAT_MESSAGES,
  MESSAGE_PAGE,
  ZConversationsResponse,
  ZCreateDmResponse,
  ZGetMessagesResponse,
  ZMarkReadResponse,
  ZSendMessageResponse,
  type TGetMessagesResponse,
  type TSendMessageRequest,
  type TSentMessage,
} from '@securering/contract';
import { apiRequest } from '@/lib/api-client';

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
