import {
  MESSAGES,
  type TPresenceState,
  type TPresenceUpdate,
  type TPresenceUpdates,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RingRepository } from '../../src/modules/rings/ring.repository';
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

  /** Every presence change a socket is told, whether alone (presence_update) or batched. */
  function presenceOf(socket: TestSocket) {
    const seen = { events: 0, updates: [] as TPresenceUpdate[], states: [] as TPresenceState[] };
    socket.on('presence_update', (update) => {
      seen.events += 1;
      seen.updates.push(update);
    });
    socket.on('presence_updates', (batch: TPresenceUpdates) => {
      seen.events += 1;
      seen.updates.push(...batch.updates);
    });
    socket.on('presence_state', (state) => seen.states.push(state));
    return seen;
  }

  it('announces members joining together in one presence event, and gives each joiner the whole state', async () => {
    const customer = await buildCustomer(t.ctx);
    const ring = (await buildRing(t.ctx, customer.id)).id;
    const watcherId = (await buildRingMember(t.ctx, ring)).id;
    const watcher = await connectSocket(baseUrl, await streamToken(watcherId));
    sockets.push(watcher);
    const watched = presenceOf(watcher);
    expect(await watcher.emitWithAck('join_ring', { ringId: ring })).toEqual({ ok: true, ringId: ring });
    // Its own join is announced (and its state sent) before the others come.
    await expect.poll(() => watched.states.length, { timeout: 5000 }).toBe(1);

    const joiners = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const id = (await buildRingMember(t.ctx, ring)).id;
        const socket = await connectSocket(baseUrl, await streamToken(id));
        sockets.push(socket);
        return { id, socket, seen: presenceOf(socket) };
      }),
    );
    // A wave of reconnections: every socket joins at once.
    const acks = await Promise.all(joiners.map((j) => j.socket.emitWithAck('join_ring', { ringId: ring })));
    expect(acks.every((ack) => ack.ok)).toBe(true);

    const ids = joiners.map((j) => j.id);
    await expect
      .poll(() => new Set(watched.updates.map((u) => u.userId)), { timeout: 5000 })
      .toEqual(new Set(ids));
    expect(watched.updates.every((u) => u.status === 'online' && u.lastSeen === null)).toBe(true);
    // Each member once, in fewer events than members (one per Ring and batch, not one per join).
    expect(watched.updates).toHaveLength(ids.length);
    expect(watched.events).toBeLessThan(ids.length);

    for (const joiner of joiners) {
      await expect.poll(() => joiner.seen.states.length, { timeout: 5000 }).toBe(1);
      const [state] = joiner.seen.states;
      expect(state!.ringId).toBe(ring);
      expect(state!.online).toEqual(expect.arrayContaining([watcherId, joiner.id]));
      // A joiner is not told about itself: the state it gets already says it.
      expect(joiner.seen.updates.map((u) => u.userId)).not.toContain(joiner.id);
    }
    // Last-seen times are written (in one batch).
    await expect
      .poll(
        async () =>
          (
            await t.ctx.db
              .selectFrom('ring_members')
              .select('last_seen_at')
              .where('id', 'in', ids)
              .where('last_seen_at', 'is not', null)
              .execute()
          ).length,
        { timeout: 5000 },
      )
      .toBe(ids.length);

    // One leaves: announced offline on its own, with its last-seen time.
    const leaving = joiners[0]!;
    leaving.socket.close();
    await expect
      .poll(() => watched.updates.find((u) => u.userId === leaving.id && u.status === 'offline'), {
        timeout: 5000,
      })
      .toMatchObject({ ringId: ring, lastSeen: expect.any(String) });
  });

  it('answers join_ring sent again while its check runs from that one check, and checks again afterwards', async () => {
    const socket = await connectSocket(baseUrl, await streamToken(memberA));
    sockets.push(socket);
    const check = vi.spyOn(RingRepository.prototype, 'findRingAccessBySession');
    try {
      // A client retrying every second on a slow server: three join_ring before any answer.
      const acks = await Promise.all([1, 2, 3].map(() => socket.emitWithAck('join_ring', { ringId: ringA })));
      expect(acks).toEqual([1, 2, 3].map(() => ({ ok: true, ringId: ringA })));
      expect(check).toHaveBeenCalledTimes(1);
      // A later join_ring is checked against the database again.
      expect(await socket.emitWithAck('join_ring', { ringId: ringA })).toEqual({ ok: true, ringId: ringA });
      expect(check).toHaveBeenCalledTimes(2);
    } finally {
      check.mockRestore();
    }
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
