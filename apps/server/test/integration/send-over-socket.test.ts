import { randomUUID } from 'node:crypto';
import {
  CHAT_MESSAGES,
  E2EE_MESSAGES,
  MAX_ENVELOPE_LENGTH,
  MESSAGES,
  ZSendMessageAck,
  type TNewMessageEvent,
  type TSendMessageEvent,
} from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { ManualClock, MINUTE_MS } from '../../src/lib/clock';
import { SENDS_PER_MINUTE } from '../../src/modules/messages/messages.service';
import { MEMBER_RECHECK_MS, RING_RECHECK_MS } from '../../src/realtime/socket-events';
import { useListeningApp } from '../listening-app';
import { connectSocket, type TestSocket } from '../socket-client';
import type { E2eeMember } from '../e2ee-member';
import { joinedSocket, keyedRing } from '../ring-fixture';

const ROOM = 'room:general';

/**
 * Issue 30: send.php over the joined socket (`send_message`, with an acknowledgement). The same
 * service, so the same checks and refusals; the HTTP call stays for clients without a socket.
 */
describe('Ring chat: sending over the socket', () => {
  const clock = new ManualClock(new Date(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS + 30_000));
  const app = useListeningApp({ clock });

  async function joined(member: E2eeMember) {
    const s = await joinedSocket(app.t, app.baseUrl, member);
    app.sockets.push(s.socket);
    return s;
  }

  const body = (member: E2eeMember, content: string): TSendMessageEvent => ({
    ringId: member.ringId,
    content,
    clientEncrypted: true,
    conversation_id: ROOM,
  });

  const send = async (socket: TestSocket, payload: unknown) =>
    ZSendMessageAck.parse(
      await socket.timeout(5000).emitWithAck('send_message', payload as TSendMessageEvent),
    );

  /** A send after the member's access may have ended: its ack, or a refusal when the socket was cut. */
  const sendOrCut = async (socket: TestSocket, member: E2eeMember, text: string) => {
    const content = await member.encrypt(ROOM, text);
    return send(socket, body(member, content)).catch(() => ({ ok: false as const, error: 'disconnected' }));
  };

  const rows = (ringId: string) =>
    app.t.ctx.db
      .selectFrom('messages')
      .select(['id', 'seq'])
      .where('ring_id', '=', ringId)
      .orderBy('seq')
      .execute();

  it('stores the envelope, answers the message in the ack and pushes it to the room', async () => {
    const { ringId, members } = await keyedRing(app.t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const aliceSocket = await joined(alice);
    const bobSocket = await joined(bob);
    const pushed = new Promise<TNewMessageEvent>((resolve) => bobSocket.socket.once('new_message', resolve));

    const clientMessageId = randomUUID();
    const content = await alice.encrypt(ROOM, 'Par le socket', { clientMessageId });
    const ack = await send(aliceSocket.socket, body(alice, content));
    expect(ack).toMatchObject({ ok: true, message: { seq: 1, clientMessageId, content } });
    const event = await pushed;
    expect(event).toMatchObject({ seq: 1, clientMessageId, content, ringId });
    expect(await bob.decrypt(event.content)).toBe('Par le socket');

    // A retry (the ack was lost), over the socket or over HTTP, answers the stored message again.
    const again = await send(aliceSocket.socket, body(alice, content));
    expect(again.ok && again.message.id).toBe(ack.ok && ack.message.id);
    const overHttp = await alice.call('POST', '/api/messages/send.php', {
      content,
      clientEncrypted: true,
      conversation_id: ROOM,
    });
    expect(overHttp.statusCode).toBe(200);
    expect(overHttp.json().message.id).toBe(ack.ok && ack.message.id);
    expect((await rows(ringId)).map((r) => r.seq)).toEqual([1]);
  });

  it('counts each message once in the member’s one budget, over HTTP and the socket together', async () => {
    const { ringId, members } = await keyedRing(app.t, 2);
    const [alice] = members as [E2eeMember];
    const aliceSocket = await joined(alice);
    const half = SENDS_PER_MINUTE / 2;
    for (let i = 0; i < half; i++) expect((await alice.send(`http ${i}`)).statusCode).toBe(200);
    for (let i = 0; i < half; i++)
      expect((await send(aliceSocket.socket, body(alice, await alice.encrypt(ROOM, `socket ${i}`)))).ok).toBe(
        true,
      );
    // The budget is spent: refused on both ways in, with send.php's 429 and its delay.
    const refused = await send(aliceSocket.socket, body(alice, await alice.encrypt(ROOM, 'de trop')));
    expect(refused).toMatchObject({ ok: false, error: MESSAGES.tooManyRequests, status: 429 });
    expect(refused.ok === false && refused.retryAfterSec).toBeGreaterThan(0);
    expect((await alice.send('de trop aussi')).statusCode).toBe(429);
    expect(await rows(ringId)).toHaveLength(SENDS_PER_MINUTE);
    // A new minute, a new budget.
    clock.advance(MINUTE_MS);
    expect(
      (await send(aliceSocket.socket, body(alice, await alice.encrypt(ROOM, 'minute suivante')))).ok,
    ).toBe(true);
  });

  it('carries send.php’s rotationSoon in the ack when the epoch nears its limit', async () => {
    const { ringId, members } = await keyedRing(app.t, 2);
    const [alice] = members as [E2eeMember];
    const aliceSocket = await joined(alice);
    await app.t.ctx.db
      .updateTable('rings')
      .set({ epoch_message_count: 899 })
      .where('id', '=', ringId)
      .execute();
    const told = await send(aliceSocket.socket, body(alice, await alice.encrypt(ROOM, 'la 900e')));
    expect(told).toMatchObject({ ok: true, rotationSoon: true, message: { seq: 1 } });
    const next = await send(aliceSocket.socket, body(alice, await alice.encrypt(ROOM, 'la 901e')));
    expect(next.ok).toBe(true);
    expect(next).not.toHaveProperty('rotationSoon');
  });

  it('refuses what send.php refuses, with its French error and code, and stores nothing', async () => {
    const { ringId, owner, members } = await keyedRing(app.t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const aliceSocket = await joined(alice);

    // Not an envelope: the contract's French error.
    const plaintext = await send(aliceSocket.socket, body(alice, 'bonjour en clair'));
    expect(plaintext).toMatchObject({ ok: false, error: E2EE_MESSAGES.plaintextRefused, status: 400 });
    // Not encrypted at all: refused by the contract, with its French message, as send.php does.
    const unencrypted = await send(aliceSocket.socket, { ...body(alice, 'x'), clientEncrypted: false });
    expect(unencrypted).toEqual({
      ok: false,
      error: 'Les messages d’un Ring doivent être chiffrés de bout en bout.',
      status: 400,
    });
    const tooLarge = await send(aliceSocket.socket, body(alice, 'x'.repeat(MAX_ENVELOPE_LENGTH + 1)));
    expect(tooLarge).toEqual({ ok: false, error: CHAT_MESSAGES.tooLarge, status: 400 });
    expect(await send(aliceSocket.socket, 'pas un objet')).toEqual({
      ok: false,
      error: MESSAGES.invalidRequest,
      status: 400,
    });
    // Another Ring named: refused before the service.
    const content = await alice.encrypt(ROOM, 'ailleurs');
    const elsewhere = await send(aliceSocket.socket, { ...body(alice, content), ringId: randomUUID() });
    expect(elsewhere).toEqual({ ok: false, error: MESSAGES.forbidden });
    // An envelope claiming another sender.
    const forged = await send(aliceSocket.socket, body(alice, await bob.encrypt(ROOM, 'au nom de Bob')));
    expect(forged.ok).toBe(false);

    // The epoch moved: the same 409 code and current epoch as send.php, for the client to re-encrypt.
    expect((await owner.rotate()).statusCode).toBe(200);
    const stale = await send(
      aliceSocket.socket,
      body(alice, await alice.encrypt(ROOM, 'vieille clé', { epoch: 1 })),
    );
    expect(stale).toMatchObject({ ok: false, status: 409, currentEpoch: 2 });
    expect(stale.ok === false && stale.code).toMatch(/epoch_stale|rotation_required/);
    expect(await rows(ringId)).toEqual([]);
  });

  it('takes a message of the epoch that has just begun, although the socket read its Ring a moment before', async () => {
    const { ringId, owner, members } = await keyedRing(app.t, 2);
    const alice = members[0]!;
    const aliceSocket = await joined(alice);
    // A send reads the Ring for this socket (kept up to a second).
    const first = await send(aliceSocket.socket, body(alice, await alice.encrypt(ROOM, 'époque 1')));
    expect(first.ok).toBe(true);

    expect((await owner.rotate()).statusCode).toBe(200);
    await alice.loadKeys();
    const second = await send(
      aliceSocket.socket,
      body(alice, await alice.encrypt(ROOM, 'époque 2', { epoch: 2 })),
    );
    expect(second).toMatchObject({ ok: true, message: { seq: 2 } });
    expect((await rows(ringId)).map((r) => r.seq)).toEqual([1, 2]);
  });

  it('is refused on a socket that has not joined its Ring, and once the member is deactivated', async () => {
    const { members, ringId } = await keyedRing(app.t, 2);
    const alice = members[0]!;
    const mint = await alice.call('POST', '/api/rings/mint-stream-token.php', {});
    const notJoined = await connectSocket(app.baseUrl, mint.json().stream_token as string);
    app.sockets.push(notJoined);
    const content = await alice.encrypt(ROOM, 'pas encore');
    expect(await send(notJoined, body(alice, content))).toEqual({ ok: false, error: MESSAGES.forbidden });

    const aliceSocket = await joined(alice);
    await app.t.ctx.db
      .updateTable('ring_members')
      .set({ status: 'inactive' })
      .where('id', '=', alice.memberId)
      .execute();
    // Changed behind the service's back (no disconnectMember): the member row is re-read at most
    // MEMBER_RECHECK_MS old.
    await new Promise((resolve) => setTimeout(resolve, MEMBER_RECHECK_MS + 100));
    const after = await sendOrCut(aliceSocket.socket, alice, 'désactivée');
    expect(after.ok).toBe(false);
    expect(await rows(ringId)).toEqual([]);
  });

  it('is refused once its session is revoked or expired by hand, and the other member is still served', async () => {
    const { members, ringId } = await keyedRing(app.t, 3);
    const [alice, bob, carol] = members as [E2eeMember, E2eeMember, E2eeMember];
    const aliceSocket = await joined(alice);
    const bobSocket = await joined(bob);
    const carolSocket = await joined(carol);
    for (const [socket, member] of [
      [aliceSocket, alice],
      [bobSocket, bob],
      [carolSocket, carol],
    ] as const)
      expect(await send(socket.socket, body(member, await member.encrypt(ROOM, 'avant')))).toMatchObject({
        ok: true,
      });
    // Behind the service's back (no disconnectSession): the re-check reads the session again.
    const sessionOf = (member: E2eeMember) =>
      app.t.ctx.db
        .updateTable('sessions')
        .where('subject_id', '=', member.memberId)
        .where('audience', '=', 'ring');
    await sessionOf(alice).set({ revoked_at: new Date().toISOString() }).execute();
    await sessionOf(bob)
      .set({ expires_at: new Date(clock.now().getTime() - 1000).toISOString() })
      .execute();
    await new Promise((resolve) => setTimeout(resolve, MEMBER_RECHECK_MS + 100));
    expect((await sendOrCut(aliceSocket.socket, alice, 'après')).ok).toBe(false);
    expect((await sendOrCut(bobSocket.socket, bob, 'après')).ok).toBe(false);
    expect((await sendOrCut(carolSocket.socket, carol, 'après')).ok).toBe(true);
    expect((await rows(ringId)).length).toBe(4);
  });

  it('is refused within a second once the Ring no longer serves its members, for every socket of it', async () => {
    const { members, ringId } = await keyedRing(app.t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const aliceSocket = await joined(alice);
    const bobSocket = await joined(bob);
    expect(await send(aliceSocket.socket, body(alice, await alice.encrypt(ROOM, 'avant')))).toMatchObject({
      ok: true,
    });
    // Deactivated by hand: nothing closes the sockets; the Ring row is re-read at most RING_RECHECK_MS old.
    await app.t.ctx.db.updateTable('rings').set({ is_active: 0 }).where('id', '=', ringId).execute();
    await new Promise((resolve) => setTimeout(resolve, RING_RECHECK_MS + 100));
    expect((await sendOrCut(aliceSocket.socket, alice, 'après')).ok).toBe(false);
    expect((await sendOrCut(bobSocket.socket, bob, 'après')).ok).toBe(false);
    expect((await rows(ringId)).length).toBe(1);
  });
});
