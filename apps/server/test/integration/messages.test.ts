import { randomUUID } from 'node:crypto';
import {
  CHAT_API_PATHS,
  CHAT_MESSAGES,
  E2EE_MESSAGES,
  JOIN_CATCH_UP_PAGE,
  KEY_API_PATHS,
  MAX_JOIN_CATCH_UP,
  MAX_ENVELOPE_LENGTH,
  MESSAGES,
  ZConversationsResponse,
  ZGetMessagesResponse,
  ZMarkReadResponse,
  ZSendMessageResponse,
  dmConversationId,
  type TMessagesDeleted,
  type TNewMessageEvent,
} from '@securering/contract';
import { generateEpochKey } from '@securering/e2ee';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildJobs } from '../../src/jobs';
import { ManualClock, MINUTE_MS } from '../../src/lib/clock';
import { CATCH_UP_MAX_BYTES } from '../../src/modules/messages/catch-up-budget';
import { MessagesService, SENDS_PER_MINUTE } from '../../src/modules/messages/messages.service';
import { buildTestApp, type TestApp } from '../build-test-app';
import { E2eeMember } from '../e2ee-member';
import { buildRingMember, ringToken } from '../factories';
import { captureLog } from '../log-capture';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

const ROOM = 'room:general';

/**
 * Issue 11, server side: encrypted messages in the room and private conversations, sequence
 * numbers, idempotent sends, catch-up, unread counts, ephemeral messages, and delivery over the
 * socket to the conversation's members only.
 */
describe('Ring chat: messages and conversations', () => {
  // A fixed clock (the middle of the current minute) keeps per-minute counts in one window.
  const clock = new ManualClock(new Date(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS + 30_000));
  let t: TestApp;
  let baseUrl: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    t = await buildTestApp({ clock });
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
  });

  /** A Ring whose owner created epoch 1 and whose members all hold it. */
  async function keyedRing(count: number, ringOverrides = {}) {
    const ring = await ringWithMembers(t, count, ringOverrides);
    const all = [ring.owner, ...ring.members];
    for (const member of all) expect((await member.publish()).statusCode).toBe(200);
    expect((await ring.owner.rotate()).statusCode).toBe(200);
    for (const member of ring.members) await member.loadKeys();
    return { ...ring, all };
  }

  async function page(member: E2eeMember, query = '') {
    const res = await member.call('GET', `${CHAT_API_PATHS.get}${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return ZGetMessagesResponse.parse(res.json());
  }

  const messageRows = (ringId: string) =>
    t.ctx.db.selectFrom('messages').selectAll().where('ring_id', '=', ringId).orderBy('seq').execute();

  it('stores an envelope under the current epoch and serves it to the Ring, who decrypts it', async () => {
    const { ringId, owner, members } = await keyedRing(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const sent = await alice.send('Bonjour à tous');
    expect(sent.statusCode, sent.body).toBe(200);
    const { message } = ZSendMessageResponse.parse(sent.json());
    expect(message).toMatchObject({
      seq: 1,
      conversationId: ROOM,
      epoch: 1,
      isOwn: true,
      encrypted: true,
      clientEncrypted: true,
      isEphemeral: false,
      expiresAt: null,
      messageType: 'text',
      sender: { id: alice.memberId },
    });
    const history = await page(bob);
    expect(history).toMatchObject({ lastSeq: 1, hasMore: false });
    expect(history.messages).toHaveLength(1);
    expect(history.messages[0]).toMatchObject({ id: message.id, seq: 1, isOwn: false });
    expect(await bob.decrypt(history.messages[0]!.content)).toBe('Bonjour à tous');
    expect(await owner.decrypt(history.messages[0]!.content)).toBe('Bonjour à tous');
    // What is stored is the envelope, not the text.
    const [row] = await messageRows(ringId);
    expect(row!.content).toBe(message.content);
    expect(row!.content).not.toContain('Bonjour');
    expect(row).toMatchObject({ seq: 1, epoch: 1, client_encrypted: 1 });
    expect(
      (
        await t.ctx.db
          .selectFrom('rings')
          .select('epoch_message_count')
          .where('id', '=', ringId)
          .executeTakeFirstOrThrow()
      ).epoch_message_count,
    ).toBe(1);
  });

  it('refuses plaintext, envelopes made for elsewhere, and any epoch but the current one', async () => {
    const { ringId, members } = await keyedRing(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const send = (payload: object) => alice.call('POST', CHAT_API_PATHS.send, payload);

    const plain = await send({ content: 'en clair', clientEncrypted: true, conversation_id: ROOM });
    expect(plain.statusCode).toBe(400);
    expect(plain.json().error).toBe(E2EE_MESSAGES.plaintextRefused);
    const flagged = await send({ content: await alice.encrypt(ROOM, 'x'), clientEncrypted: false });
    expect(flagged.statusCode).toBe(400);
    expect(flagged.json().error).toBe(E2EE_MESSAGES.plaintextRefused);

    // An envelope of another conversation, or signed as Bob, does not go into the room.
    const dm = dmConversationId(alice.memberId, bob.memberId);
    for (const content of [
      await alice.encrypt(dm, 'ailleurs'),
      (await alice.encrypt(ROOM, 'usurpé')).replace(`"s":"${alice.memberId}"`, `"s":"${bob.memberId}"`),
      (await alice.encrypt(ROOM, 'autre ring')).replace(`"r":"${ringId}"`, `"r":"${randomUUID()}"`),
    ]) {
      const res = await send({ content, clientEncrypted: true, conversation_id: ROOM });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(E2EE_MESSAGES.envelopeMismatch);
    }

    // An old or future epoch.
    const stale = await alice.send('vieux', { epoch: 1 });
    expect(stale.statusCode).toBe(200);
    expect((await alice.rotate()).statusCode).toBe(200);
    const old = await alice.send('époque 1', { epoch: 1 });
    expect(old.statusCode).toBe(409);
    expect(old.json()).toEqual({
      success: false,
      error: E2EE_MESSAGES.epochStale,
      code: 'epoch_stale',
      currentEpoch: 2,
    });
    expect((await messageRows(ringId)).map((m) => m.epoch)).toEqual([1]);
  });

  it('asks for a first epoch before any message, and refuses an oversized envelope', async () => {
    const { members } = await ringWithMembers(t, 1);
    const alice = members[0]!;
    await alice.publish();
    // Encrypt under an epoch-1 key that was never registered with the server.
    alice.epochKeys.set(1, await generateEpochKey({ ringId: alice.ringId, epoch: 1, level: 'standard' }));
    const early = await alice.send('trop tôt');
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 'rotation_required', currentEpoch: 0 });

    const huge = await alice.call('POST', CHAT_API_PATHS.send, {
      content: 'x'.repeat(MAX_ENVELOPE_LENGTH + 1),
      clientEncrypted: true,
    });
    expect(huge.statusCode).toBe(400);
    expect(huge.json().error).toBe(CHAT_MESSAGES.tooLarge);
    const tooBig = await alice.call('POST', CHAT_API_PATHS.send, {
      content: 'x'.repeat(200_000),
      clientEncrypted: true,
    });
    expect(tooBig.statusCode).toBe(413);
  });

  it('stores a message once when it is sent again with the same client id, even at the same time', async () => {
    const { ringId, members } = await keyedRing(1);
    const alice = members[0]!;
    const clientMessageId = randomUUID();
    const first = await alice.send('une fois', { clientMessageId });
    const again = await alice.send('une fois', { clientMessageId });
    expect(again.statusCode).toBe(200);
    expect(again.json().message.id).toBe(first.json().message.id);
    expect(again.json().message.content).toBe(first.json().message.content);

    const racingId = randomUUID();
    const content = await alice.encrypt(ROOM, 'en même temps', { clientMessageId: racingId });
    const raced = await Promise.all(
      Array.from({ length: 5 }, () =>
        alice.call('POST', CHAT_API_PATHS.send, { content, clientEncrypted: true, conversation_id: ROOM }),
      ),
    );
    expect(raced.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(raced.map((r) => r.json().message.id)).size).toBe(1);
    const rows = await messageRows(ringId);
    expect(rows.map((r) => r.seq)).toEqual([1, 2]);
    expect(rows.map((r) => r.client_message_id)).toEqual([clientMessageId, racingId]);
  });

  it('numbers 50 concurrent sends 1..50 without a gap or a duplicate', async () => {
    const { ringId, members } = await keyedRing(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? alice : bob).send(`message ${i}`)),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    const seqs = responses.map((r) => r.json().message.seq as number).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect((await messageRows(ringId)).map((r) => r.seq)).toEqual(seqs);
    const conversation = await t.ctx.db
      .selectFrom('conversations')
      .select('last_seq')
      .where('ring_id', '=', ringId)
      .executeTakeFirstOrThrow();
    expect(conversation.last_seq).toBe(50);
  });

  it('serves pages: the latest, older ones, and catch-up after a sequence, each message once in order', async () => {
    const { members } = await keyedRing(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    for (let i = 1; i <= 7; i++) expect((await alice.send(`m${i}`)).statusCode).toBe(200);

    const latest = await page(bob, '?limit=3');
    expect(latest.messages.map((m) => m.seq)).toEqual([5, 6, 7]);
    expect(latest).toMatchObject({ hasMore: true, lastSeq: 7 });
    const older = await page(bob, '?limit=3&before=5');
    expect(older.messages.map((m) => m.seq)).toEqual([2, 3, 4]);
    expect((await page(bob, '?limit=3&before=2')).messages.map((m) => m.seq)).toEqual([1]);
    expect((await page(bob, '?limit=3&before=2')).hasMore).toBe(false);

    // Catch-up: everything after the last sequence seen, in order, each once.
    const seen: number[] = [];
    let since = 0;
    for (;;) {
      const next = await page(bob, `?since=${since}&limit=3&conversation_id=${ROOM}`);
      seen.push(...next.messages.map((m) => m.seq));
      since = next.messages.at(-1)?.seq ?? since;
      if (!next.hasMore) break;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const texts = await Promise.all(
      (await page(bob, '?since=0')).messages.map((m) => bob.decrypt(m.content)),
    );
    expect(texts).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    expect((await page(bob, '?since=7')).messages).toEqual([]);
    const tooMany = await bob.call('GET', `${CHAT_API_PATHS.get}?limit=101`);
    expect(tooMany.statusCode).toBe(400);
  });

  it('opens a private conversation to its two participants only, at the API and on the socket', async () => {
    const { members } = await keyedRing(3);
    const [alice, bob, carol] = members as [E2eeMember, E2eeMember, E2eeMember];
    const { members: strangers } = await ringWithMembers(t, 1);
    const stranger = strangers[0]!;

    const created = await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId });
    expect(created.statusCode, created.body).toBe(200);
    const dm = dmConversationId(alice.memberId, bob.memberId);
    expect(created.json()).toEqual({
      success: true,
      conversation_id: dm,
      peer: { id: bob.memberId, username: expect.any(String) },
    });
    // The same conversation whoever asks, even at the same time.
    const both = await Promise.all([
      bob.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: alice.memberId }),
      alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId }),
    ]);
    expect(both.map((r) => r.json().conversation_id)).toEqual([dm, dm]);
    expect(
      (
        await t.ctx.db
          .selectFrom('conversations')
          .select('id')
          .where('ring_id', '=', alice.ringId)
          .where('conversation_key', '=', dm)
          .execute()
      ).length,
    ).toBe(1);

    const self = await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: alice.memberId });
    expect(self.statusCode).toBe(400);
    expect(self.json().error).toBe(CHAT_MESSAGES.dmSelf);
    const foreign = await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: stranger.memberId });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toBe(CHAT_MESSAGES.peerNotFound);

    const [aliceSocket, bobSocket, carolSocket] = await Promise.all([
      joinedSocket(t, baseUrl, alice),
      joinedSocket(t, baseUrl, bob),
      joinedSocket(t, baseUrl, carol),
    ]);
    sockets.push(aliceSocket.socket, bobSocket.socket, carolSocket.socket);
    const sent = await alice.send('rien que pour Bob', { conversationId: dm });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().message).toMatchObject({ conversationId: dm, seq: 1, messageType: 'dm' });
    const messagesOf = (s: typeof aliceSocket) =>
      s.events.filter((e) => e.name === 'new_message').map((e) => e.payload as TNewMessageEvent);
    await expect.poll(() => messagesOf(bobSocket).length).toBe(1);
    await expect.poll(() => messagesOf(aliceSocket).length).toBe(1);
    expect(messagesOf(bobSocket)[0]).toMatchObject({
      conversationId: dm,
      seq: 1,
      fromUserId: alice.memberId,
    });
    expect(await bob.decrypt(messagesOf(bobSocket)[0]!.content, dm)).toBe('rien que pour Bob');

    // Carol: no event, and the conversation does not exist for her (same answer as a made-up one).
    for (const url of [
      `${CHAT_API_PATHS.get}?conversation_id=${dm}`,
      `${CHAT_API_PATHS.get}?conversation_id=dm:a:b`,
    ]) {
      const res = await carol.call('GET', url);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe(CHAT_MESSAGES.conversationNotFound);
    }
    const intrusion = await carol.send('je m’invite', { conversationId: dm });
    expect(intrusion.statusCode).toBe(404);
    expect((await stranger.call('GET', `${CHAT_API_PATHS.get}?conversation_id=${dm}`)).statusCode).toBe(404);
    expect(
      (await bob.call('GET', `${CHAT_API_PATHS.get}?conversation_id=${dm}`)).json().messages,
    ).toHaveLength(1);

    // A room message reaches everyone in the Ring; the stranger's Ring hears nothing.
    const strangerSocket = await joinedSocket(t, baseUrl, stranger);
    sockets.push(strangerSocket.socket);
    expect((await alice.send('pour tous')).statusCode).toBe(200);
    await expect.poll(() => messagesOf(carolSocket).length).toBe(1);
    await expect.poll(() => messagesOf(bobSocket).length).toBe(2);
    expect(messagesOf(carolSocket)[0]).toMatchObject({ conversationId: ROOM, messageType: 'text' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(messagesOf(carolSocket).filter((m) => m.conversationId === dm)).toEqual([]);
    expect(messagesOf(strangerSocket)).toEqual([]);
  });

  it('carries what a reconnecting page missed in join_ring’s answer, for its own conversations only', async () => {
    const { members } = await keyedRing(3);
    const [alice, bob, carol] = members as [E2eeMember, E2eeMember, E2eeMember];
    const dm = dmConversationId(alice.memberId, bob.memberId);
    expect(
      (await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId })).statusCode,
    ).toBe(200);
    for (const text of ['m1', 'm2', 'm3']) expect((await alice.send(text)).statusCode).toBe(200);
    for (const text of ['d1', 'd2'])
      expect((await alice.send(text, { conversationId: dm })).statusCode).toBe(200);

    // Bob held the room up to seq 1 and nothing of the DM.
    const bobJoin = await joinedSocket(t, baseUrl, bob, [
      { conversationId: ROOM, since: 1 },
      { conversationId: dm, since: 0 },
    ]);
    sockets.push(bobJoin.socket);
    const missed = bobJoin.ack.missed ?? [];
    expect(missed.map((m) => [m.conversationId, m.messages.map((x) => x.seq), m.hasMore])).toEqual([
      [ROOM, [2, 3], false],
      [dm, [1, 2], false],
    ]);
    // As get.php serves them: the same envelopes, which Bob decrypts.
    expect(missed[0]!.messages).toEqual((await page(bob, `?since=1&conversation_id=${ROOM}`)).messages);
    expect(missed[1]!.messages).toEqual((await page(bob, `?since=0&conversation_id=${dm}`)).messages);
    expect(await Promise.all(missed[1]!.messages.map((m) => bob.decrypt(m.content, dm)))).toEqual([
      'd1',
      'd2',
    ]);

    // Carol names Alice and Bob's conversation and a made-up one: both left out, the room answered.
    const carolJoin = await joinedSocket(t, baseUrl, carol, [
      { conversationId: ROOM, since: 0 },
      { conversationId: dm, since: 0 },
      { conversationId: 'dm:a:b', since: 0 },
    ]);
    sockets.push(carolJoin.socket);
    expect(carolJoin.ack.missed?.map((m) => [m.conversationId, m.messages.length])).toEqual([[ROOM, 3]]);

    // The conversation list with unread counts, as list.php answers it, when asked.
    const withList = await joinedSocket(t, baseUrl, bob, undefined, { conversations: true });
    sockets.push(withList.socket);
    const listed = ZConversationsResponse.parse((await bob.call('GET', CHAT_API_PATHS.list)).json());
    expect(withList.ack.conversations).toEqual(listed.conversations);
    expect(withList.ack.conversations?.map((c) => [c.id, c.unread])).toEqual([
      [ROOM, 3],
      [dm, 2],
    ]);
    expect(withList.ack.missed).toBeUndefined();

    // Nothing asked, nothing added: the answer stays { ok, ringId }.
    const plain = await joinedSocket(t, baseUrl, carol);
    sockets.push(plain.socket);
    expect(plain.ack).toEqual({ ok: true, ringId: carol.ringId });
  });

  it('answers a join_ring catch-up by pages, and loses no message sent while the socket joins', async () => {
    const { owner, members } = await keyedRing(1);
    const bob = members[0]!;
    const total = JOIN_CATCH_UP_PAGE + 1;
    const sends = await Promise.all(Array.from({ length: total }, (_, i) => owner.send(`p${i}`)));
    expect(sends.map((r) => r.statusCode)).toEqual(sends.map(() => 200));
    const first = await joinedSocket(t, baseUrl, bob, [{ conversationId: ROOM, since: 0 }]);
    sockets.push(first.socket);
    const [room] = first.ack.missed ?? [];
    expect(room?.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: JOIN_CATCH_UP_PAGE }, (_, i) => i + 1),
    );
    expect(room?.hasMore).toBe(true);

    // A message sent right after the answer's messages were read (before the answer leaves) is
    // pushed to the socket: it entered the Ring's room before that read. Nothing falls between.
    const read = MessagesService.prototype.missedSince;
    const between = vi.spyOn(MessagesService.prototype, 'missedSince').mockImplementationOnce(async function (
      this: MessagesService,
      ...args
    ) {
      const answer = await read.apply(this, args);
      expect((await owner.send('entre deux')).statusCode).toBe(200);
      return answer;
    });
    try {
      const second = await joinedSocket(t, baseUrl, bob, [{ conversationId: ROOM, since: total }]);
      sockets.push(second.socket);
      expect(second.ack.missed).toEqual([{ conversationId: ROOM, messages: [], hasMore: false }]);
      await expect
        .poll(() =>
          second.events
            .filter((e) => e.name === 'new_message')
            .map((e) => (e.payload as TNewMessageEvent).seq),
        )
        .toEqual([total + 1]);
    } finally {
      between.mockRestore();
    }
  });

  it('pages a large backlog to the byte budget: every message once, in order, and no envelope read that is not sent', async () => {
    const { owner, members } = await keyedRing(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const dm = dmConversationId(alice.memberId, bob.memberId);
    expect(
      (await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId })).statusCode,
    ).toBe(200);
    // About 80 KB envelopes with small ones between: six or so per answer of CATCH_UP_MAX_BYTES.
    const large = (i: number) => `${i}:${'x'.repeat(58_000)}`;
    const roomTexts = Array.from({ length: 30 }, (_, i) => (i % 3 === 2 ? `petit ${i}` : large(i)));
    for (const text of roomTexts) expect((await owner.send(text)).statusCode).toBe(200);
    const dmTexts = Array.from({ length: 4 }, (_, i) => large(100 + i));
    for (const text of dmTexts) expect((await alice.send(text, { conversationId: dm })).statusCode).toBe(200);

    // Every message row the database hands out (a row with its envelope), while Bob catches up.
    const executor = t.ctx.db.getExecutor();
    const execute = executor.executeQuery.bind(executor);
    let envelopesRead = 0;
    const spy = vi.spyOn(executor, 'executeQuery').mockImplementation(async (query) => {
      const result = await execute(query);
      envelopesRead += result.rows.filter((row) => typeof row === 'object' && row && 'content' in row).length;
      return result;
    });
    const served = new Map<string, Array<{ seq: number; content: string }>>([
      [ROOM, []],
      [dm, []],
    ]);
    const answerSizes: number[] = [];
    try {
      const join = await joinedSocket(t, baseUrl, bob, [
        { conversationId: ROOM, since: 0 },
        { conversationId: dm, since: 0 },
      ]);
      sockets.push(join.socket);
      const missed = join.ack.missed ?? [];
      // The room's first page fills the budget; the DM waits for get.php.
      expect(missed[0]).toMatchObject({ conversationId: ROOM, hasMore: true });
      expect(missed[0]!.messages.length).toBeGreaterThan(1);
      expect(missed[0]!.messages.length).toBeLessThan(JOIN_CATCH_UP_PAGE);
      answerSizes.push(missed.flatMap((m) => m.messages).reduce((sum, m) => sum + m.content.length, 0));
      for (const answer of missed) served.get(answer.conversationId)!.push(...answer.messages);

      for (const conversation of [ROOM, dm]) {
        let hasMore = missed.find((m) => m.conversationId === conversation)?.hasMore ?? true;
        while (hasMore) {
          const since = served.get(conversation)!.at(-1)?.seq ?? 0;
          const next = await page(
            bob,
            `?since=${since}&limit=100&conversation_id=${encodeURIComponent(conversation)}`,
          );
          expect(next.messages.length).toBeGreaterThan(0);
          answerSizes.push(next.messages.reduce((sum, m) => sum + m.content.length, 0));
          served.get(conversation)!.push(...next.messages);
          hasMore = next.hasMore;
        }
      }
    } finally {
      spy.mockRestore();
    }
    expect(served.get(ROOM)!.map((m) => m.seq)).toEqual(roomTexts.map((_, i) => i + 1));
    expect(served.get(dm)!.map((m) => m.seq)).toEqual(dmTexts.map((_, i) => i + 1));
    expect(answerSizes.length).toBeGreaterThanOrEqual(4);
    for (const size of answerSizes) expect(size).toBeLessThanOrEqual(CATCH_UP_MAX_BYTES);
    // Sized before it is read: the database gave out exactly the envelopes that were sent.
    expect(envelopesRead).toBe(roomTexts.length + dmTexts.length);
    const room = served.get(ROOM)!;
    expect(await bob.decrypt(room[2]!.content)).toBe(roomTexts[2]);
    expect(await bob.decrypt(room.at(-1)!.content)).toBe(roomTexts.at(-1));
    expect(await bob.decrypt(served.get(dm)!.at(-1)!.content, dm)).toBe(dmTexts.at(-1));
  });

  it('refuses a join_ring whose catch-up is malformed, and changes nothing', async () => {
    const { members } = await keyedRing(1);
    const bob = members[0]!;
    const { socket } = await joinedSocket(t, baseUrl, bob);
    sockets.push(socket);
    const tooMany = Array.from({ length: MAX_JOIN_CATCH_UP + 1 }, (_, i) => ({
      conversationId: i === 0 ? ROOM : `dm:${i}:x`,
      since: 0,
    }));
    for (const catchUp of [
      tooMany,
      [{ conversationId: ROOM, since: -1 }],
      [
        { conversationId: ROOM, since: 0 },
        { conversationId: ROOM, since: 2 },
      ],
      [{ conversationId: '', since: 0 }],
      'room:general',
    ])
      expect(await socket.emitWithAck('join_ring', { ringId: bob.ringId, catchUp } as never)).toEqual({
        ok: false,
        error: MESSAGES.forbidden,
      });
    expect(
      await socket.emitWithAck('join_ring', { ringId: bob.ringId, conversations: 'oui' } as never),
    ).toEqual({ ok: false, error: MESSAGES.forbidden });
    // The socket stays in its Ring and can ask again properly.
    expect(
      await socket.emitWithAck('join_ring', {
        ringId: bob.ringId,
        catchUp: [{ conversationId: ROOM, since: 0 }],
      }),
    ).toEqual({
      ok: true,
      ringId: bob.ringId,
      missed: [{ conversationId: ROOM, messages: [], hasMore: false }],
    });
  });

  it('counts unread messages per conversation and moves the read mark forward only', async () => {
    const { members } = await keyedRing(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const list = async (member: E2eeMember) =>
      ZConversationsResponse.parse((await member.call('GET', CHAT_API_PATHS.list)).json()).conversations;
    expect(await list(bob)).toEqual([
      { id: ROOM, kind: 'room', peer: null, lastSeq: 0, lastReadSeq: 0, unread: 0, lastActivityAt: null },
    ]);

    const dm = (await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId })).json()
      .conversation_id as string;
    for (let i = 0; i < 3; i++) await alice.send(`salon ${i}`);
    clock.advance(1000);
    const dmAt = clock.now().toISOString();
    await alice.send('privé', { conversationId: dm });
    clock.advance(1000);
    const roomAt = clock.now().toISOString();
    await bob.send('ma réponse');
    // Last activity (issue 29): when the latest message was stored, per conversation.
    expect(await list(bob)).toEqual([
      { id: ROOM, kind: 'room', peer: null, lastSeq: 4, lastReadSeq: 0, unread: 3, lastActivityAt: roomAt },
      {
        id: dm,
        kind: 'dm',
        peer: { id: alice.memberId, username: expect.any(String) },
        lastSeq: 1,
        lastReadSeq: 0,
        unread: 1,
        lastActivityAt: dmAt,
      },
    ]);
    expect((await list(alice)).map((c) => c.unread)).toEqual([1, 0]);

    const read = await bob.call('POST', CHAT_API_PATHS.read, { conversation_id: ROOM, seq: 2 });
    expect(ZMarkReadResponse.parse(read.json())).toEqual({
      success: true,
      conversation_id: ROOM,
      lastReadSeq: 2,
      unread: 1,
    });
    // Never backwards; capped at the last message.
    await bob.call('POST', CHAT_API_PATHS.read, { conversation_id: ROOM, seq: 1 });
    const capped = await bob.call('POST', CHAT_API_PATHS.read, { conversation_id: ROOM, seq: 999 });
    expect(capped.json()).toMatchObject({ lastReadSeq: 4, unread: 0 });
    expect((await list(bob)).map((c) => [c.id, c.lastReadSeq, c.unread])).toEqual([
      [ROOM, 4, 0],
      [dm, 0, 1],
    ]);
    const { members: strangers } = await ringWithMembers(t, 1);
    expect(
      (await strangers[0]!.call('POST', CHAT_API_PATHS.read, { conversation_id: dm, seq: 1 })).statusCode,
    ).toBe(404);
  });

  it('leaves out of the unread counts what a member may not read, and lists private conversations in the order they began', async () => {
    const { members } = await keyedRing(3);
    const [alice, bob, carol] = members as [E2eeMember, E2eeMember, E2eeMember];
    const list = async (member: E2eeMember) =>
      ZConversationsResponse.parse((await member.call('GET', CHAT_API_PATHS.list)).json()).conversations;
    for (let i = 0; i < 2; i++) await alice.send(`avant ${i}`);
    // Carol joined later, in a Ring that does not share its history: she reads from epoch 2 on.
    await t.ctx.db
      .updateTable('ring_members')
      .set({ first_readable_epoch: 2 })
      .where('id', '=', carol.memberId)
      .execute();
    // Nor does its last activity count a message she may not read.
    expect((await list(carol))[0]).toMatchObject({ id: ROOM, lastSeq: 2, unread: 0, lastActivityAt: null });
    expect((await list(bob))[0]).toMatchObject({
      id: ROOM,
      lastSeq: 2,
      unread: 2,
      lastActivityAt: clock.now().toISOString(),
    });

    const dmWith = async (from: E2eeMember, peer: E2eeMember) => {
      clock.advance(1);
      return (await from.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: peer.memberId })).json()
        .conversation_id as string;
    };
    const withCarol = await dmWith(alice, carol);
    const withBob = await dmWith(alice, bob);
    const bobCarol = await dmWith(carol, bob);
    expect((await list(alice)).map((c) => [c.id, c.peer?.id ?? null])).toEqual([
      [ROOM, null],
      [withCarol, carol.memberId],
      [withBob, bob.memberId],
    ]);
    expect((await list(carol)).map((c) => [c.id, c.peer?.id ?? null])).toEqual([
      [ROOM, null],
      [withCarol, alice.memberId],
      [bobCarol, bob.memberId],
    ]);
  });

  it('makes messages ephemeral by the Ring’s setting; expired ones are never served, then deleted and announced', async () => {
    const { ringId, owner, members } = await keyedRing(2, { ephemeral_messages: 1, auto_destroy_delay: 10 });
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const bobSocket = await joinedSocket(t, baseUrl, bob);
    const ownerSocket = await joinedSocket(t, baseUrl, owner);
    sockets.push(bobSocket.socket, ownerSocket.socket);
    const sentAt = clock.now().getTime();
    const sent = await alice.send('éphémère', { ephemeralSec: 10 });
    expect(sent.json().message).toMatchObject({ isEphemeral: true, messageType: 'ephemeral' });
    const dm = (await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId })).json()
      .conversation_id as string;
    const dmSent = await alice.send('éphémère privé', { conversationId: dm, ephemeralSec: 10 });
    expect((await page(bob)).messages).toHaveLength(1);
    // Everyone present reads both at once: they go 10 s later (ephemeral-reads.test.ts: after reading).
    for (const [socket, conversationId, id] of [
      [bobSocket.socket, ROOM, sent.json().message.id],
      [ownerSocket.socket, ROOM, sent.json().message.id],
      [bobSocket.socket, dm, dmSent.json().message.id],
    ] as const)
      expect(
        await socket.emitWithAck('message_read', { ringId, conversationId, messageIds: [id] }),
      ).toMatchObject({ ok: true, reads: [{ messageId: id }] });
    expect((await messageRows(ringId)).map((row) => row.expires_at)).toEqual([
      new Date(sentAt + 10_000).toISOString(),
      new Date(sentAt + 10_000).toISOString(),
    ]);

    clock.advance(10_001);
    try {
      expect((await page(bob)).messages).toEqual([]);
      expect((await page(bob, `?since=0&conversation_id=${dm}`)).messages).toEqual([]);
      expect(
        (
          await ZConversationsResponse.parse((await bob.call('GET', CHAT_API_PATHS.list)).json())
        ).conversations.map((c) => c.unread),
      ).toEqual([0, 0]);
      expect(await messageRows(ringId)).toHaveLength(2);

      const job = buildJobs(t.ctx).find((j) => j.name === 'ephemeral-purge')!;
      expect(job.intervalMs).toBeLessThanOrEqual(5_000);
      await job.run();
      expect(await messageRows(ringId)).toEqual([]);
      const deleted = () =>
        bobSocket.events
          .filter((e) => e.name === 'messages_deleted')
          .map((e) => e.payload as TMessagesDeleted);
      await expect.poll(() => deleted().length).toBe(2);
      expect(
        deleted()
          .map((d) => d.conversationId)
          .sort(),
      ).toEqual([dm, ROOM].sort());
      expect(deleted().find((d) => d.conversationId === ROOM)).toEqual({
        ringId,
        conversationId: ROOM,
        messageIds: [sent.json().message.id],
      });
    } finally {
      clock.advance(-10_001);
    }
  });

  it('accepts v2 envelopes with a signed sequence, serves them verbatim, and reads their signed lifetime (issue 27 M4)', async () => {
    const { members } = await keyedRing(2, { ephemeral_messages: 1, auto_destroy_delay: 10 });
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const first = { stream: 'browser-a', counter: 1, prevHash: '0'.repeat(64), lastPermanent: 0 };
    // Signed permanent (x: 0) while the Ring wants 10 s: asked to sign the setting in force.
    const permanent = await alice.send('permanent ?', { chain: first });
    expect(permanent.statusCode).toBe(409);
    expect(permanent.json()).toMatchObject({ code: 'ephemeral_changed', ephemeralSec: 10 });
    const sent = await alice.send('éphémère signé', { chain: first, ephemeralSec: 10, isEphemeral: true });
    expect(sent.statusCode).toBe(200);
    expect(sent.json().message).toMatchObject({ isEphemeral: true });
    const stored = (await page(bob)).messages[0]!;
    expect(JSON.parse(stored.content)).toMatchObject({ v: 2, x: 10, d: 'browser-a', n: 1, k: 0 });
    expect(await bob.decrypt(stored.content)).toBe('éphémère signé');
  });

  it('refuses an ephemeral message in a Ring that has them off', async () => {
    const { members } = await keyedRing(1);
    const res = await members[0]!.send('éphémère ?', { isEphemeral: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(CHAT_MESSAGES.ephemeralNotAllowed);
  });

  it('limits how many messages a member sends per minute', async () => {
    const { members } = await keyedRing(1);
    const alice = members[0]!;
    const contents = await Promise.all(
      Array.from({ length: SENDS_PER_MINUTE + 1 }, (_, i) => alice.encrypt(ROOM, `n${i}`)),
    );
    const statuses: number[] = [];
    for (const content of contents)
      statuses.push(
        (
          await alice.call('POST', CHAT_API_PATHS.send, {
            content,
            clientEncrypted: true,
            conversation_id: ROOM,
          })
        ).statusCode,
      );
    expect(statuses.slice(0, SENDS_PER_MINUTE).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('never writes records, shares or message contents to the server log or the system log', async () => {
    const log = captureLog();
    const logged = await buildTestApp({ clock, logStream: log.stream, config: { logLevel: 'trace' } });
    try {
      const ring = await ringWithMembers(logged, 1);
      const alice = ring.members[0]!;
      await ring.owner.publish();
      await alice.publish();
      expect((await ring.owner.rotate()).statusCode).toBe(200);
      await alice.loadKeys();
      const canary = `canari-${randomUUID()}`;
      const sent = await alice.send(canary);
      expect(sent.statusCode).toBe(200);
      // Failures too: a stale epoch and a malformed share.
      await alice.send(canary, { epoch: 1, clientMessageId: randomUUID() });
      await alice.call('POST', KEY_API_PATHS.share, { shares: [{ v: 1 }], keyVersions: {} });
      const shareRow = await logged.ctx.db
        .selectFrom('epoch_key_shares')
        .select('share')
        .where('recipient_member_id', '=', alice.memberId)
        .executeTakeFirstOrThrow();
      const { ct: shareCiphertext } = JSON.parse(shareRow.share) as { ct: string };
      const { ct: messageCiphertext } = JSON.parse(sent.json().message.content as string) as { ct: string };
      const systemLog = JSON.stringify(await logged.ctx.db.selectFrom('system_logs').selectAll().execute());
      expect(log.text().length).toBeGreaterThan(1000);
      for (const secret of [
        canary,
        alice.record.wrapped_dek,
        alice.record.hmac_hex,
        alice.record.kdf_salt_b64,
        shareCiphertext,
        messageCiphertext,
      ]) {
        expect(log.text()).not.toContain(secret);
        expect(systemLog).not.toContain(secret);
      }
    } finally {
      await logged.close();
    }
  });

  it.runIf(Boolean(process.env.TEST_REDIS_URL))(
    'with two instances sharing the database and Redis: messages and key nudges reach sockets on the other one',
    async () => {
      const second = await buildTestApp({
        database: t.database,
        redisKeyPrefix: t.ctx.config.redisKeyPrefix,
      });
      try {
        const secondUrl = await listen(second.app);
        const { owner, members } = await keyedRing(3);
        const [alice, bob, carol] = members as [E2eeMember, E2eeMember, E2eeMember];
        // Bob and Carol are connected to the second instance; Alice sends through the first.
        const [bobSocket, carolSocket] = await Promise.all([
          joinedSocket(t, secondUrl, bob),
          joinedSocket(t, secondUrl, carol),
        ]);
        sockets.push(bobSocket.socket, carolSocket.socket);
        const received = (s: typeof bobSocket) =>
          s.events.filter((e) => e.name === 'new_message').map((e) => e.payload as TNewMessageEvent);
        const sent = await alice.send('d’une instance à l’autre');
        expect(sent.statusCode).toBe(200);
        await expect.poll(() => received(bobSocket).length, { timeout: 5000 }).toBe(1);
        expect(await bob.decrypt(received(bobSocket)[0]!.content)).toBe('d’une instance à l’autre');
        const dm = (await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId })).json()
          .conversation_id as string;
        expect((await alice.send('en privé', { conversationId: dm })).statusCode).toBe(200);
        await expect.poll(() => received(bobSocket).length, { timeout: 5000 }).toBe(2);
        await expect.poll(() => received(carolSocket).length, { timeout: 5000 }).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(received(carolSocket).map((m) => m.conversationId)).toEqual([ROOM]);

        // Erin lacks the key and asks on the first instance; the holders online are on the second.
        const erinRow = await buildRingMember(t.ctx, alice.ringId);
        const erin = new E2eeMember(t.app, erinRow.id, alice.ringId, await ringToken(t.ctx, erinRow.id));
        await erin.publish();
        // Admitted with the history: she may receive the epoch the holders have.
        expect((await owner.admit(erin.memberId, { shareHistory: true })).statusCode).toBe(200);
        const erinSocket = await joinedSocket(t, baseUrl, erin);
        sockets.push(erinSocket.socket);
        const asked = () =>
          [bobSocket, carolSocket].flatMap((s) =>
            s.keys.filter((k) => k.reason === 'needed' && k.memberId === erin.memberId),
          ).length;
        // Nudged twice already, each time to both holders: when Erin was admitted, and when her
        // socket joined. Both pairs come through Redis, in either order: wait for all four.
        await expect.poll(asked, { timeout: 5000 }).toBe(4);
        const before = asked();
        expect(await erinSocket.socket.emitWithAck('request_keys', { ringId: erin.ringId })).toEqual({
          ok: true,
          nudged: 2,
        });
        await expect.poll(asked, { timeout: 5000 }).toBe(before + 2);
      } finally {
        await second.app.close();
      }
    },
  );

  it('answers 401 without a Ring session', async () => {
    for (const [method, url] of [
      ['POST', CHAT_API_PATHS.send],
      ['GET', CHAT_API_PATHS.get],
      ['POST', CHAT_API_PATHS.createDm],
      ['GET', CHAT_API_PATHS.list],
      ['POST', CHAT_API_PATHS.read],
      ['GET', KEY_API_PATHS.state],
      ['GET', KEY_API_PATHS.getMemberKey],
    ] as const) {
      const res = await t.app.inject({ method, url, payload: method === 'POST' ? {} : undefined });
      expect(res.statusCode, url).toBe(401);
      expect(res.json().error).toBe(MESSAGES.notAuthenticated);
    }
  });
});
