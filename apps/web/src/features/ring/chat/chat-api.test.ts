import type { TMessage, TSendMessageRequest } from '@securering/contract';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { SOCKET_SEND_TIMEOUT_MS, socketFirstChatApi, type ChatApi, type ChatSocketLink } from './chat-api';

const body: TSendMessageRequest = {
  content: '{"v":2}',
  messageType: 'text',
  clientEncrypted: true,
  conversation_id: 'room',
  isEphemeral: false,
};

const stored = (seq: number): TMessage => ({
  id: `m${seq}`,
  seq,
  conversationId: 'room',
  clientMessageId: 'c1',
  epoch: 1,
  content: body.content,
  messageType: 'text',
  sender: { id: 'u1', username: 'lea' },
  timestamp: '2026-11-30T10:00:00.000Z',
  isOwn: true,
  encrypted: true,
  clientEncrypted: true,
  isEphemeral: false,
  expiresAt: null,
  readAt: null,
});

/** send.php as a spy: it answers the stored message numbered 7. */
function httpApi(): ChatApi & { send: ReturnType<typeof vi.fn> } {
  return {
    getMessages: vi.fn(),
    send: vi.fn(async () => ({ message: stored(7) })),
  };
}

/** A joined socket whose `send_message` answers `answer` (or throws it, as a timeout does). */
function joinedSocket(answer: () => Promise<unknown>) {
  const emitWithAck = vi.fn(answer);
  const timeout = vi.fn(() => ({ emitWithAck }));
  const link: ChatSocketLink = {
    joinedSocket: () => ({ timeout }) as unknown as ReturnType<ChatSocketLink['joinedSocket']>,
    ringId: () => 'ring-1',
  };
  return { link, emitWithAck, timeout };
}

describe('socketFirstChatApi', () => {
  it('sends over the joined socket, with the Ring id, and not through send.php', async () => {
    const http = httpApi();
    const { link, emitWithAck, timeout } = joinedSocket(async () => ({
      ok: true,
      message: stored(3),
      rotationSoon: true,
    }));
    const sent = await socketFirstChatApi(link, http).send(body);
    expect(sent).toEqual({ message: stored(3), rotationSoon: true });
    expect(timeout).toHaveBeenCalledWith(SOCKET_SEND_TIMEOUT_MS);
    expect(emitWithAck).toHaveBeenCalledWith('send_message', { ...body, ringId: 'ring-1' });
    expect(http.send).not.toHaveBeenCalled();
  });

  it('goes through send.php when the socket has not joined the room', async () => {
    const http = httpApi();
    const link: ChatSocketLink = { joinedSocket: () => null, ringId: () => 'ring-1' };
    expect(await socketFirstChatApi(link, http).send(body)).toEqual({ message: stored(7) });
    expect(http.send).toHaveBeenCalledWith(body);
  });

  it("throws the service's refusal as send.php's answer would be, without sending it again", async () => {
    const http = httpApi();
    const { link } = joinedSocket(async () => ({
      ok: false,
      error: 'Une nouvelle clé est nécessaire',
      status: 409,
      code: 'rotation_required',
      currentEpoch: 4,
    }));
    const refused = await socketFirstChatApi(link, http)
      .send(body)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      status: 409,
      message: 'Une nouvelle clé est nécessaire',
      body: { error: 'Une nouvelle clé est nécessaire', code: 'rotation_required', currentEpoch: 4 },
    });
    expect(http.send).not.toHaveBeenCalled();
  });

  it('hands the same body to send.php when the socket refuses before the service, drops or does not answer', async () => {
    for (const answer of [
      async () => ({ ok: false, error: 'Session expirée' }),
      async () => {
        throw new Error('operation has timed out');
      },
      async () => {
        throw new Error('socket has been disconnected');
      },
      async () => ({ ok: true }),
    ]) {
      const http = httpApi();
      const { link } = joinedSocket(answer);
      expect(await socketFirstChatApi(link, http).send(body)).toEqual({ message: stored(7) });
      expect(http.send).toHaveBeenCalledExactlyOnceWith(body);
    }
  });
});
