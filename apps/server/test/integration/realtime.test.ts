import { MESSAGES } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, buildRing, buildRingMember, ringToken } from '../factories';
import { connectSocket, listen, type TestSocket } from '../socket-client';

describe('realtime skeleton', () => {
  let t: TestApp;
  let baseUrl: string;
  let ringA: string;
  let ringB: string;
  let memberA: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    baseUrl = await listen(t.app);
    const customer = await buildCustomer(t.ctx);
    ringA = (await buildRing(t.ctx, customer.id)).id;
    ringB = (await buildRing(t.ctx, customer.id)).id;
    memberA = (await buildRingMember(t.ctx, ringA)).id;
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await t.close();
  });

  async function streamToken(memberId: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rings/mint-stream-token.php',
      headers: bearer(await ringToken(t.ctx, memberId)),
    });
    expect(res.statusCode).toBe(200);
    return res.json().stream_token as string;
  }

  it('refuses a socket without a token, with a forged token, or with a Ring session token', async () => {
    await expect(connectSocket(baseUrl, undefined)).rejects.toThrow(MESSAGES.notAuthenticated);
    await expect(connectSocket(baseUrl, 'forged-token')).rejects.toThrow(MESSAGES.sessionExpired);
    const sessionToken = await ringToken(t.ctx, memberA);
    await expect(connectSocket(baseUrl, sessionToken)).rejects.toThrow(MESSAGES.sessionExpired);
  });

  it('accepts a stream token, joins its own Ring only, and receives events for that Ring', async () => {
    const socket = await connectSocket(baseUrl, await streamToken(memberA));
    sockets.push(socket);
    const other = await socket.emitWithAck('join_ring', { ringId: ringB });
    expect(other).toEqual({ ok: false, error: MESSAGES.forbidden });
    const own = await socket.emitWithAck('join_ring', { ringId: ringA });
    expect(own).toEqual({ ok: true, ringId: ringA });

    const received: unknown[] = [];
    socket.on('ring_settings_updated', (e) => received.push(e));
    t.ctx.realtime.emitToRing(ringB, 'ring_settings_updated', {
      ringId: ringB,
      updated: { ephemeral_messages: true },
    });
    t.ctx.realtime.emitToRing(ringA, 'ring_settings_updated', {
      ringId: ringA,
      updated: { ephemeral_messages: true },
    });
    await expect.poll(() => received.length).toBe(1);
    expect(received[0]).toEqual({ ringId: ringA, updated: { ephemeral_messages: true } });
  });

  it('refuses the stream token of a member who was deactivated', async () => {
    const member = await buildRingMember(t.ctx, ringA);
    const token = await streamToken(member.id);
    await t.ctx.db
      .updateTable('ring_members')
      .set({ status: 'inactive' })
      .where('id', '=', member.id)
      .execute();
    await expect(connectSocket(baseUrl, token)).rejects.toThrow(MESSAGES.sessionExpired);
  });

  it.runIf(Boolean(process.env.TEST_REDIS_URL))(
    'delivers an event emitted on one instance to a socket connected to another (Redis adapter)',
    async () => {
      const second = await buildTestApp({
        database: t.database,
        redisKeyPrefix: t.ctx.config.redisKeyPrefix,
      });
      try {
        const secondUrl = await listen(second.app);
        const socket = await connectSocket(secondUrl, await streamToken(memberA));
        sockets.push(socket);
        expect(await socket.emitWithAck('join_ring', { ringId: ringA })).toEqual({ ok: true, ringId: ringA });
        const received: unknown[] = [];
        socket.on('ring_settings_updated', (e) => received.push(e));
        // Emitted on the first instance; the socket lives on the second.
        t.ctx.realtime.emitToRing(ringA, 'ring_settings_updated', {
          ringId: ringA,
          updated: { screen_protection_level: 'maximum' },
        });
        await expect.poll(() => received.length, { timeout: 5000 }).toBe(1);
        expect(received[0]).toEqual({ ringId: ringA, updated: { screen_protection_level: 'maximum' } });
      } finally {
        await second.app.close();
      }
    },
  );
});
