import { randomUUID } from 'node:crypto';
import {
  CHAT_API_PATHS,
  CHAT_MESSAGES,
  DELETE_MESSAGE_ERRORS,
  DELETE_MESSAGE_PATH,
  ZDeleteMessageResponse,
  ZGetMessagesResponse,
  ZSendMessageResponse,
  dmConversationId,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import type { E2eeMember } from '../e2ee-member';
import { keyedRing } from '../ring-fixture';

const ROOM = 'room:general';

/**
 * Issue 29, server side: a member deletes the ciphertext of their own message (after sending the
 * signed deletion readers go by); nobody else may, not another member, not a member of another
 * Ring, not a stranger to a private conversation. French errors, nothing changes when refused.
 */
describe('Ring chat: a sender deletes their own message', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function sent(member: E2eeMember, text: string, conversationId = ROOM) {
    const clientMessageId = randomUUID();
    const res = await member.send(text, { conversationId, clientMessageId });
    expect(res.statusCode, res.body).toBe(200);
    return { clientMessageId, message: ZSendMessageResponse.parse(res.json()).message };
  }

  const rows = (ringId: string) =>
    t.ctx.db
      .selectFrom('messages')
      .select(['id', 'client_message_id'])
      .where('ring_id', '=', ringId)
      .execute();

  it('deletes the caller’s own message (ciphertext gone from the database and from pages)', async () => {
    const { ringId, members } = await keyedRing(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const first = await sent(alice, 'à supprimer');
    const second = await sent(alice, 'reste');
    const res = await alice.call('POST', DELETE_MESSAGE_PATH, {
      conversation_id: ROOM,
      client_message_id: first.clientMessageId,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(ZDeleteMessageResponse.parse(res.json())).toEqual({ success: true, messageId: first.message.id });
    expect((await rows(ringId)).map((r) => r.client_message_id)).toEqual([second.clientMessageId]);
    const page = await bob.call('GET', `${CHAT_API_PATHS.get}?conversation_id=${encodeURIComponent(ROOM)}`);
    const served = ZGetMessagesResponse.parse(page.json());
    expect(served.messages.map((m) => m.id)).toEqual([second.message.id]);
    // Twice: nothing left to delete.
    const again = await alice.call('POST', DELETE_MESSAGE_PATH, {
      conversation_id: ROOM,
      client_message_id: first.clientMessageId,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toBe(DELETE_MESSAGE_ERRORS.notFound);
  });

  it('refuses another member’s message, another Ring’s member, and bad input; nothing changes', async () => {
    const { ringId, owner, members } = await keyedRing(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const target = await sent(alice, 'à moi');
    const byBob = await bob.call('POST', DELETE_MESSAGE_PATH, {
      conversation_id: ROOM,
      client_message_id: target.clientMessageId,
    });
    expect(byBob.statusCode).toBe(403);
    expect(byBob.json().error).toBe(DELETE_MESSAGE_ERRORS.notOwn);
    // Not even the Ring's owner.
    const byOwner = await owner.call('POST', DELETE_MESSAGE_PATH, {
      conversation_id: ROOM,
      client_message_id: target.clientMessageId,
    });
    expect(byOwner.statusCode).toBe(403);
    const { members: others } = await keyedRing(t, 1);
    const outsider = others[0]!;
    const byOutsider = await outsider.call('POST', DELETE_MESSAGE_PATH, {
      conversation_id: ROOM,
      client_message_id: target.clientMessageId,
    });
    expect(byOutsider.statusCode).toBe(404);
    const missing = await alice.call('POST', DELETE_MESSAGE_PATH, { conversation_id: ROOM });
    expect(missing.statusCode).toBe(400);
    const tooLong = await alice.call('POST', DELETE_MESSAGE_PATH, {
      conversation_id: ROOM,
      client_message_id: 'x'.repeat(101),
    });
    expect(tooLong.statusCode).toBe(400);
    const unknownConversation = await alice.call('POST', DELETE_MESSAGE_PATH, {
      conversation_id: 'dm:nobody:else',
      client_message_id: target.clientMessageId,
    });
    expect(unknownConversation.statusCode).toBe(404);
    expect(unknownConversation.json().error).toBe(CHAT_MESSAGES.conversationNotFound);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: DELETE_MESSAGE_PATH,
      payload: { conversation_id: ROOM, client_message_id: target.clientMessageId },
    });
    expect(anonymous.statusCode).toBe(401);
    expect((await rows(ringId)).map((r) => r.client_message_id)).toEqual([target.clientMessageId]);
  });

  it('in a private conversation: its sender only; a third member sees no such conversation', async () => {
    const { ringId, members } = await keyedRing(t, 3);
    const [alice, bob, carol] = members as [E2eeMember, E2eeMember, E2eeMember];
    expect(
      (await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId })).statusCode,
    ).toBe(200);
    const dm = dmConversationId(alice.memberId, bob.memberId);
    const target = await sent(alice, 'entre nous', dm);
    const body = { conversation_id: dm, client_message_id: target.clientMessageId };
    expect((await carol.call('POST', DELETE_MESSAGE_PATH, body)).statusCode).toBe(404);
    expect((await bob.call('POST', DELETE_MESSAGE_PATH, body)).statusCode).toBe(403);
    expect(await rows(ringId)).toHaveLength(1);
    expect((await alice.call('POST', DELETE_MESSAGE_PATH, body)).statusCode).toBe(200);
    expect(await rows(ringId)).toHaveLength(0);
  });
});
