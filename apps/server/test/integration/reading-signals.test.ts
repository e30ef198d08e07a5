import {
  CHAT_API_PATHS,
  CHAT_MESSAGES,
  E2EE_MESSAGES,
  MESSAGES,
  READING_SIGNALS_PER_MINUTE,
  dmConversationId,
  type TReadingSignalEvent,
} from '@securering/contract';
import { createLink, type LinkSigner } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import { useListeningApp } from '../listening-app';
import type { E2eeMember } from '../e2ee-member';
import { joinedSocket, keyedRing, ringWithMembers } from '../ring-fixture';

const ROOM = 'room:general';

/**
 * Typing indicators and read receipts (issue 29): `reading_signal` carries an envelope the server
 * cannot read, relays it only to the conversation's other members and stores nothing; a member
 * outside a private conversation, a plaintext, or an envelope naming someone else is refused.
 */
describe('Ring chat: encrypted typing indicators and read receipts are relayed to the conversation only', () => {
  const app = useListeningApp();

  async function ringOfThree() {
    const ring = await keyedRing(app.t, 3);
    const [alice, bob, carol] = ring.members as [E2eeMember, E2eeMember, E2eeMember];
    const joined = async (member: E2eeMember) => {
      const j = await joinedSocket(app.t, app.baseUrl, member);
      app.sockets.push(j.socket);
      return j;
    };
    return {
      ringId: ring.ringId,
      owner: await joined(ring.owner),
      alice: { member: alice, ...(await joined(alice)) },
      bob: { member: bob, ...(await joined(bob)) },
      carol: { member: carol, ...(await joined(carol)) },
    };
  }

  const signalsIn = (events: Array<{ name: string; payload: unknown }>) =>
    events.filter((e) => e.name === 'reading_signal').map((e) => e.payload as TReadingSignalEvent);

  it('relays a room signal to the Ring with the sender stamped, and a private one to the peer only', async () => {
    const { ringId, owner, alice, bob, carol } = await ringOfThree();
    const content = await alice.member.encrypt(ROOM, '{"k":"typing"}');
    expect(
      await alice.socket.emitWithAck('reading_signal', { ringId, conversationId: ROOM, content }),
    ).toEqual({
      ok: true,
    });
    const expected: TReadingSignalEvent = {
      ringId,
      conversationId: ROOM,
      fromUserId: alice.member.memberId,
      content,
    };
    await expect.poll(() => signalsIn(bob.events)).toEqual([expected]);
    await expect.poll(() => signalsIn(owner.events)).toEqual([expected]);
    // Not back to its sender, in the room as in a private conversation.
    expect(signalsIn(alice.events)).toEqual([]);
    expect(await bob.member.decrypt(signalsIn(bob.events)[0]!.content)).toBe('{"k":"typing"}');

    const dm = dmConversationId(alice.member.memberId, bob.member.memberId);
    expect(
      (await alice.member.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.member.memberId }))
        .statusCode,
    ).toBe(200);
    const dmContent = await alice.member.encrypt(dm, '{"k":"read","seq":3}');
    expect(
      await alice.socket.emitWithAck('reading_signal', { ringId, conversationId: dm, content: dmContent }),
    ).toEqual({
      ok: true,
    });
    await expect.poll(() => signalsIn(bob.events).length).toBe(2);
    expect(signalsIn(bob.events)[1]).toMatchObject({ conversationId: dm, fromUserId: alice.member.memberId });
    // Carol and the owner are not in the private conversation: they hear nothing of it.
    const carolDm = await carol.member.encrypt(dm, '{"k":"typing"}');
    expect(
      await carol.socket.emitWithAck('reading_signal', { ringId, conversationId: dm, content: carolDm }),
    ).toEqual({
      ok: false,
      error: CHAT_MESSAGES.conversationNotFound,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(signalsIn(carol.events).filter((s) => s.conversationId === dm)).toEqual([]);
    expect(signalsIn(owner.events).filter((s) => s.conversationId === dm)).toEqual([]);
    expect(signalsIn(bob.events)).toHaveLength(2);
    // Nothing is stored: the conversation has only the messages sent (none).
    const stored = await app.t.ctx.db
      .selectFrom('messages')
      .select('id')
      .where('content', 'in', [content, dmContent])
      .execute();
    expect(stored).toEqual([]);
  });

  it('stores the owner’s signed switch of typing indicators and read receipts, and refuses anyone else’s', async () => {
    const { owner, members } = await ringWithMembers(app.t, 1);
    const [alice] = members as [E2eeMember];
    expect((await alice.publish()).statusCode).toBe(200);
    const change = { type: 'reading', body: { typing: true, receipts: true } } as const;
    // Alice signs it as if the log made her the owner: the server's verifier refuses it.
    const log = (await alice.syncLog())!;
    const forged = await createLink(
      {
        ...log,
        members: new Map(
          [...log.members].map(([id, m]) => [
            id,
            id === alice.memberId ? { ...m, role: 'owner' as const } : m,
          ]),
        ),
      },
      change,
      (alice as unknown as { signer(): LinkSigner }).signer(),
    );
    expect((await alice.postLink(forged)).statusCode).toBe(400);
    const stored = await owner.appendChange(change);
    expect(stored.statusCode, stored.body).toBe(200);
    expect((await alice.syncLog())!.reading).toEqual({ typing: true, receipts: true });
  });

  it('refuses plaintext, an envelope of another member or conversation, another Ring, and floods', async () => {
    const { ringId, alice, bob } = await ringOfThree();
    const send = (payload: Record<string, unknown>) =>
      alice.socket.emitWithAck('reading_signal', { ringId, conversationId: ROOM, ...payload } as never);
    expect(await send({ content: 'Léa écrit…' })).toEqual({
      ok: false,
      error: E2EE_MESSAGES.plaintextRefused,
    });
    // Bob's own envelope replayed by Alice (the sender is stamped from the session, not the envelope).
    const bobs = await bob.member.encrypt(ROOM, '{"k":"typing"}');
    expect(await send({ content: bobs })).toEqual({ ok: false, error: E2EE_MESSAGES.envelopeMismatch });
    const otherConversation = await alice.member.encrypt(
      dmConversationId(alice.member.memberId, bob.member.memberId),
      '{"k":"typing"}',
    );
    expect(await send({ content: otherConversation })).toEqual({
      ok: false,
      error: E2EE_MESSAGES.envelopeMismatch,
    });
    const valid = await alice.member.encrypt(ROOM, '{"k":"typing"}');
    expect(await send({ content: valid, ringId: 'another-ring' })).toEqual({
      ok: false,
      error: MESSAGES.forbidden,
    });
    expect(await send({ content: 'x'.repeat(5000) })).toEqual({ ok: false, error: MESSAGES.invalidRequest });
    expect(signalsIn(bob.events)).toEqual([]);

    // The three refused envelopes counted (they passed the schema and the Ring check): the budget
    // of READING_SIGNALS_PER_MINUTE runs out three signals early.
    const answers = [];
    for (let i = 0; i < READING_SIGNALS_PER_MINUTE; i++) answers.push(await send({ content: valid }));
    expect(answers.at(-1)).toEqual({ ok: false, error: MESSAGES.tooManyRequests });
    expect(answers.filter((a) => a.ok)).toHaveLength(READING_SIGNALS_PER_MINUTE - 3);
    expect(answers[0]).toEqual({ ok: true });
  });
});
