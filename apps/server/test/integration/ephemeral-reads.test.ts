import {
  CHAT_API_PATHS,
  CHAT_MESSAGES,
  EPHEMERAL_MAX_LIFETIME_SEC,
  MESSAGES,
  ZGetMessagesResponse,
  ZSendMessageResponse,
  type TMessageFirstRead,
  type TMessagesDeleted,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredMessages } from '../../src/modules/messages/ephemeral-purge.job';
import { ManualClock, MINUTE_MS } from '../../src/lib/clock';
import { buildTestApp, type TestApp } from '../build-test-app';
import type { E2eeMember } from '../e2ee-member';
import { joinedSocket, keyedRing, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

const ROOM = 'room:general';

/**
 * Ephemeral messages "self-destruct after reading" (spec 1, issue 25): each reader's countdown
 * starts at its own first display (`message_read`), the sender hears of the first one, and the
 * server deletes the message once every member present at sending has read it and the delay ran
 * out — or 7 days after sending, read or not.
 */
describe('Ring chat: ephemeral messages count down from each reader’s first display', () => {
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

  /** A Ring with ephemeral messages of `delay` seconds whose members all hold epoch 1. */
  async function ephemeralRing(count: number, delay = 300) {
    return keyedRing(t, count, { ephemeral_messages: 1, auto_destroy_delay: delay });
  }

  async function page(member: E2eeMember, conversationId = ROOM) {
    const res = await member.call('GET', `${CHAT_API_PATHS.get}?conversation_id=${conversationId}`);
    expect(res.statusCode, res.body).toBe(200);
    return ZGetMessagesResponse.parse(res.json()).messages;
  }

  async function joined(member: E2eeMember) {
    const joinedSocketOf = await joinedSocket(t, baseUrl, member);
    sockets.push(joinedSocketOf.socket);
    return joinedSocketOf;
  }

  const read = (socket: TestSocket, messageIds: string[], conversationId: string, ringId: string) =>
    socket.emitWithAck('message_read', { ringId, conversationId, messageIds });

  const rowOf = (id: string) =>
    t.ctx.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();

  /** Moves the clock forward for the duration of `run`, then back. */
  async function later<T>(ms: number, run: () => Promise<T>): Promise<T> {
    clock.advance(ms);
    try {
      return await run();
    } finally {
      clock.advance(-ms);
    }
  }

  it('keeps a message for a member offline longer than the delay, and starts its countdown when it reads it', async () => {
    const { ringId, owner, members } = await ephemeralRing(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const sentAt = clock.now().getTime();
    const sent = await alice.send('lu puis effacé', { ephemeralSec: 300 });
    expect(sent.statusCode, sent.body).toBe(200);
    const { message } = ZSendMessageResponse.parse(sent.json());
    expect(message).toMatchObject({ isEphemeral: true, readAt: null, messageType: 'ephemeral' });
    // Until everyone present has read it, the server keeps it up to the maximum.
    expect(message.expiresAt).toBe(new Date(sentAt + EPHEMERAL_MAX_LIFETIME_SEC * 1000).toISOString());

    const aliceSocket = await joined(alice);
    const bobSocket = await joined(bob);
    const ownerSocket = await joined(owner);

    // Bob was away for ten minutes (twice the delay): the message is still there for him.
    await later(10 * MINUTE_MS, async () => {
      await purgeExpiredMessages(t.ctx);
      const served = await page(bob);
      expect(served.map((m) => m.id)).toEqual([message.id]);
      expect(served[0]!.readAt).toBeNull();
      expect(await bob.decrypt(served[0]!.content)).toBe('lu puis effacé');

      // He displays it: his countdown starts now, and Alice's copy learns of the first reading.
      const bobReadAt = clock.now().toISOString();
      expect(await read(bobSocket.socket, [message.id], ROOM, ringId)).toEqual({
        ok: true,
        reads: [{ messageId: message.id, readAt: bobReadAt }],
      });
      await expect
        .poll(() => aliceSocket.events.filter((e) => e.name === 'message_first_read').map((e) => e.payload))
        .toEqual([
          {
            ringId,
            conversationId: ROOM,
            messageId: message.id,
            readAt: bobReadAt,
            expiresAt: message.expiresAt,
          } satisfies TMessageFirstRead,
        ]);
      expect((await page(alice))[0]!.readAt).toBe(bobReadAt);
      expect((await page(bob))[0]!.readAt).toBe(bobReadAt);

      // A second receipt (another device, a reload) keeps the first time and tells nobody again.
      clock.advance(60_000);
      try {
        expect(await read(bobSocket.socket, [message.id], ROOM, ringId)).toEqual({
          ok: true,
          reads: [{ messageId: message.id, readAt: bobReadAt }],
        });
        // Bob's delay ran out, but the owner has not read it: the server keeps it.
        clock.advance(300_000);
        await purgeExpiredMessages(t.ctx);
        expect(await rowOf(message.id)).toBeDefined();

        // The owner reads it last: the message goes 300 s after that reading.
        const ownerReadAt = clock.now().toISOString();
        expect(await read(ownerSocket.socket, [message.id], ROOM, ringId)).toMatchObject({ ok: true });
        const due = new Date(Date.parse(ownerReadAt) + 300_000).toISOString();
        expect((await rowOf(message.id))!.expires_at).toBe(due);
        clock.advance(299_000);
        await purgeExpiredMessages(t.ctx);
        expect((await page(owner)).map((m) => m.id)).toEqual([message.id]);
        clock.advance(1_000);
        expect(await page(owner)).toEqual([]);
        await purgeExpiredMessages(t.ctx);
        expect(await rowOf(message.id)).toBeUndefined();
        await expect
          .poll(() => bobSocket.events.filter((e) => e.name === 'messages_deleted').map((e) => e.payload))
          .toEqual([{ ringId, conversationId: ROOM, messageIds: [message.id] } satisfies TMessagesDeleted]);
      } finally {
        clock.advance(-60_000 - 300_000 - 300_000);
      }
      expect(aliceSocket.events.filter((e) => e.name === 'message_first_read')).toHaveLength(1);
    });
  });

  it('deletes a message nobody reads 7 days after sending', async () => {
    const { members } = await ephemeralRing(1);
    const sent = await members[0]!.send('jamais lu', { ephemeralSec: 300 });
    const { message } = ZSendMessageResponse.parse(sent.json());
    await later(EPHEMERAL_MAX_LIFETIME_SEC * 1000 - 1_000, async () => {
      await purgeExpiredMessages(t.ctx);
      expect(await rowOf(message.id)).toBeDefined();
    });
    await later(EPHEMERAL_MAX_LIFETIME_SEC * 1000, async () => {
      await purgeExpiredMessages(t.ctx);
      expect(await rowOf(message.id)).toBeUndefined();
    });
  });

  it('takes the delay from the sender’s signed envelope only, and only the Ring’s setting', async () => {
    const { members } = await ephemeralRing(1, 60);
    const alice = members[0]!;
    for (const options of [{}, { ephemeralSec: 300 }, { isEphemeral: true }]) {
      const res = await alice.send('délai ?', options);
      expect(res.statusCode, JSON.stringify(options)).toBe(409);
      expect(res.json()).toMatchObject({ code: 'ephemeral_changed', ephemeralSec: 60 });
    }
    const plain = await ringWithMembers(t, 1);
    for (const member of [plain.owner, ...plain.members])
      expect((await member.publish()).statusCode).toBe(200);
    expect((await plain.owner.rotate()).statusCode).toBe(200);
    const res = await plain.owner.send('éphémère ?', { ephemeralSec: 60 });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'ephemeral_changed', ephemeralSec: null });
    expect(
      await t.ctx.db.selectFrom('messages').select('id').where('ring_id', '=', plain.ringId).execute(),
    ).toEqual([]);
  });

  it('counts receipts only from members who may read the message, never the sender’s own, and refuses the rest', async () => {
    const { ringId, members } = await ephemeralRing(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const other = await ephemeralRing(1);
    const { message } = ZSendMessageResponse.parse(
      (await alice.send('à nous', { ephemeralSec: 300 })).json(),
    );
    const dm = (await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: bob.memberId })).json()
      .conversation_id as string;

    const aliceSocket = await joined(alice);
    const strangerSocket = await joined(other.members[0]!);
    const ownerSocket = await joined(other.owner);
    // Its own message: no receipt. Another Ring's member: not its conversation's message.
    expect(await read(aliceSocket.socket, [message.id], ROOM, ringId)).toEqual({ ok: true, reads: [] });
    expect(await read(strangerSocket.socket, [message.id], ROOM, other.ringId)).toEqual({
      ok: true,
      reads: [],
    });
    // Another Ring's id, someone else's private conversation, a malformed payload: refused.
    expect(await read(strangerSocket.socket, [message.id], ROOM, ringId)).toEqual({
      ok: false,
      error: MESSAGES.forbidden,
    });
    expect(await read(ownerSocket.socket, [message.id], dm, other.ringId)).toEqual({
      ok: false,
      error: CHAT_MESSAGES.conversationNotFound,
    });
    expect(
      await aliceSocket.socket.emitWithAck('message_read', {
        ringId,
        conversationId: ROOM,
        messageIds: [],
      }),
    ).toEqual({ ok: false, error: MESSAGES.invalidRequest });
    const row = await rowOf(message.id);
    expect(row).toMatchObject({ first_read_at: null });
    expect(
      await t.ctx.db.selectFrom('message_reads').selectAll().where('message_id', '=', message.id).execute(),
    ).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ member_id: bob.memberId, recipient: 1, read_at: null }),
        expect.objectContaining({ recipient: 1, read_at: null }),
      ]),
    );
  });
  it.runIf(Boolean(process.env.TEST_REDIS_URL))(
    'with two instances sharing the database and Redis: the sender on one hears of a reading on the other',
    async () => {
      const second = await buildTestApp({
        database: t.database,
        redisKeyPrefix: t.ctx.config.redisKeyPrefix,
      });
      try {
        const secondUrl = await listen(second.app);
        const { ringId, owner, members } = await ephemeralRing(1);
        const alice = members[0]!;
        // Alice is connected to the second instance; the owner reads through the first.
        const aliceSocket = await joinedSocket(t, secondUrl, alice);
        sockets.push(aliceSocket.socket);
        const ownerSocket = await joined(owner);
        const { message } = ZSendMessageResponse.parse(
          (await alice.send('ailleurs', { ephemeralSec: 300 })).json(),
        );
        expect(await read(ownerSocket.socket, [message.id], ROOM, ringId)).toMatchObject({ ok: true });
        await expect
          .poll(() => aliceSocket.events.filter((e) => e.name === 'message_first_read').length, {
            timeout: 5000,
          })
          .toBe(1);
      } finally {
        await second.app.close();
      }
    },
  );
});
