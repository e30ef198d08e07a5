import { MESSAGES, RING_MESSAGES, ZRingStatsResponse, type TRingStats } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, buildRing, buildRingMember, customerToken, ringToken } from '../factories';

const URL_BASE = '/api/customer/ring-stats.php';
const GIB = 1024 ** 3;

describe('ring statistics (customer space, "Statistiques")', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T12:00:00.000Z');
  let headers: Record<string, string>;
  let ringId: string;
  let emptyRingId: string;
  let otherRingId: string;
  let memberTokenHeaders: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp({ clock });
    const db = t.ctx.db;

    const customer = await buildCustomer(t.ctx);
    headers = bearer(await customerToken(t.ctx, customer.id));
    const ring = await buildRing(t.ctx, customer.id, { storage_quota_bytes: 50 * GIB });
    ringId = ring.id;
    emptyRingId = (await buildRing(t.ctx, customer.id)).id;

    await buildRingMember(t.ctx, ring.id, { role: 'owner', customer_id: customer.id });
    const m1 = await buildRingMember(t.ctx, ring.id);
    const m2 = await buildRingMember(t.ctx, ring.id);
    const m3 = await buildRingMember(t.ctx, ring.id);
    const removed = await buildRingMember(t.ctx, ring.id, { status: 'inactive' });
    await buildRingMember(t.ctx, ring.id, { status: 'invited', is_used: 0, used_at: null });
    memberTokenHeaders = bearer(await ringToken(t.ctx, m1.id));

    const other = await buildCustomer(t.ctx);
    const otherRing = await buildRing(t.ctx, other.id);
    otherRingId = otherRing.id;
    const stranger = await buildRingMember(t.ctx, otherRing.id);

    const conversation = async (rid: string) => {
      const id = newId();
      await db
        .insertInto('conversations')
        .values({
          id,
          ring_id: rid,
          kind: 'room',
          conversation_key: 'room:general',
          created_at: '2026-01-01T00:00:00.000Z',
          last_seq: 0,
        })
        .execute();
      return id;
    };
    const room = await conversation(ring.id);
    const otherRoom = await conversation(otherRing.id);

    let seq = 0;
    const message = (rid: string, conversationId: string, sender: string | null, at: string) => ({
      seq: ++seq,
      client_message_id: newId(),
      epoch: 1,
      id: newId(),
      ring_id: rid,
      conversation_id: conversationId,
      sender_member_id: sender,
      content: 'chiffré',
      message_type: 'text',
      client_encrypted: 1 as const,
      is_ephemeral: 0 as const,
      expires_at: null,
      created_at: at,
    });
    await db
      .insertInto('messages')
      .values([
        // Today: 3 messages by 2 distinct members.
        message(ring.id, room, m1.id, '2026-11-22T08:00:00.000Z'),
        message(ring.id, room, m1.id, '2026-11-22T09:00:00.000Z'),
        message(ring.id, room, m2.id, '2026-11-22T11:59:59.999Z'),
        // Day boundaries: last millisecond of the 20th, first of the 21st.
        message(ring.id, room, m3.id, '2026-11-20T23:59:59.999Z'),
        message(ring.id, room, m3.id, '2026-11-21T00:00:00.000Z'),
        // A message whose sender was deleted counts as a message but not as an active member.
        message(ring.id, room, null, '2026-11-21T10:00:00.000Z'),
        // A member removed since then was active on that day.
        message(ring.id, room, removed.id, '2026-11-01T10:00:00.000Z'),
        // First instant of the 30-day window (2026-10-24 → 2026-11-22).
        message(ring.id, room, m1.id, '2026-10-24T00:00:00.000Z'),
        // Just outside the 30-day window, inside the 90-day one.
        message(ring.id, room, m2.id, '2026-10-23T23:59:59.999Z'),
        message(ring.id, room, m2.id, '2026-10-22T12:00:00.000Z'), // 31 days ago
        // Tomorrow (clock skew): after the window.
        message(ring.id, room, m1.id, '2026-11-23T00:00:00.000Z'),
        // Another Ring's activity never leaks in.
        message(otherRing.id, otherRoom, stranger.id, '2026-11-22T10:00:00.000Z'),
        message(otherRing.id, otherRoom, stranger.id, '2026-11-22T10:01:00.000Z'),
      ])
      .execute();

    const call = (rid: string, caller: string, at: string) => ({
      id: newId(),
      ring_id: rid,
      caller_member_id: caller,
      callee_member_id: null,
      call_type: 'voice' as const,
      status: 'ended' as const,
      started_at: at,
      answered_at: null,
      ended_at: null,
    });
    await db
      .insertInto('calls')
      .values([
        call(ring.id, m1.id, '2026-11-22T10:00:00.000Z'),
        call(ring.id, m2.id, '2026-11-22T11:30:00.000Z'),
        call(ring.id, m3.id, '2026-11-19T05:00:00.000Z'),
        // 90-day window starts 2026-08-25.
        call(ring.id, m1.id, '2026-08-25T00:00:00.000Z'),
        call(ring.id, m1.id, '2026-08-24T23:59:59.999Z'),
        call(otherRing.id, stranger.id, '2026-11-22T10:00:00.000Z'),
      ])
      .execute();

    const file = (rid: string, size: number) => {
      const id = newId();
      return {
        id,
        ring_id: rid,
        folder_path: '',
        name: `fichier-${id}`,
        extension: 'bin',
        original_name: 'fichier.bin',
        mime_type: 'application/octet-stream',
        size_bytes: size,
        storage_key: `key-${id}`,
        uploaded_by_member_id: null,
        uploaded_at: '2026-11-01T10:00:00.000Z',
        updated_at: '2026-11-01T10:00:00.000Z',
      };
    };
    await db
      .insertInto('ring_files')
      .values([file(ring.id, 3 * GIB), file(ring.id, 512), file(otherRing.id, 1000)])
      .execute();
  });
  afterAll(() => t.close());

  const get = (query: string, h: Record<string, string> = headers) =>
    t.app.inject({ method: 'GET', url: `${URL_BASE}${query}`, headers: h });
  const stats = async (query: string): Promise<TRingStats> => {
    const res = await get(query);
    expect(res.statusCode).toBe(200);
    return ZRingStatsResponse.parse(res.json()).data;
  };
  const countOn = (series: Array<{ date: string; count: number }>, date: string) =>
    series.find((d) => d.date === date)?.count;

  it('defaults to 30 zero-filled UTC days, oldest first, ending today', async () => {
    const data = await stats(`?ring_id=${ringId}`);
    expect(data.ringId).toBe(ringId);
    expect(data.days).toBe(30);
    for (const series of [data.messagesPerDay, data.activeMembersPerDay, data.callsPerDay]) {
      expect(series).toHaveLength(30);
      expect(series[0]!.date).toBe('2026-10-24');
      expect(series[29]!.date).toBe('2026-11-22');
      expect(series.map((d) => d.date)).toEqual([...series.map((d) => d.date)].sort());
    }
    expect(countOn(data.messagesPerDay, '2026-11-15')).toBe(0);
    expect(countOn(data.callsPerDay, '2026-11-15')).toBe(0);
    expect(countOn(data.activeMembersPerDay, '2026-11-15')).toBe(0);
  });

  it('counts messages per day with exact day boundaries and window edges', async () => {
    const data = await stats(`?ring_id=${ringId}&days=30`);
    expect(countOn(data.messagesPerDay, '2026-11-22')).toBe(3);
    expect(countOn(data.messagesPerDay, '2026-11-21')).toBe(2);
    expect(countOn(data.messagesPerDay, '2026-11-20')).toBe(1);
    expect(countOn(data.messagesPerDay, '2026-11-01')).toBe(1);
    expect(countOn(data.messagesPerDay, '2026-10-24')).toBe(1);
    expect(countOn(data.messagesPerDay, '2026-10-23')).toBeUndefined();
    // Only the listed days have messages.
    const nonZero = data.messagesPerDay.filter((d) => d.count > 0).map((d) => d.date);
    expect(nonZero).toEqual(['2026-10-24', '2026-11-01', '2026-11-20', '2026-11-21', '2026-11-22']);
    expect(data.totals.messages).toBe(8);
  });

  it('counts distinct senders per day as active members', async () => {
    const data = await stats(`?ring_id=${ringId}&days=30`);
    expect(countOn(data.activeMembersPerDay, '2026-11-22')).toBe(2); // m1 twice, m2 once
    expect(countOn(data.activeMembersPerDay, '2026-11-21')).toBe(1); // m3; the sender-less message is not a member
    expect(countOn(data.activeMembersPerDay, '2026-11-20')).toBe(1);
    expect(countOn(data.activeMembersPerDay, '2026-11-01')).toBe(1);
    // m1, m2, m3 and the since-removed member; m2's older messages are outside the window anyway.
    expect(data.totals.activeMembers).toBe(4);
  });

  it('counts calls per day', async () => {
    const data = await stats(`?ring_id=${ringId}&days=30`);
    expect(countOn(data.callsPerDay, '2026-11-22')).toBe(2);
    expect(countOn(data.callsPerDay, '2026-11-19')).toBe(1);
    expect(data.callsPerDay.filter((d) => d.count > 0)).toHaveLength(2);
    expect(data.totals.calls).toBe(3);
  });

  it('gives totals and storage of the Ring only', async () => {
    const data = await stats(`?ring_id=${ringId}`);
    // Owner, three active members and one pending invitation; the removed member is not counted.
    expect(data.totals.members).toBe(5);
    expect(data.totals.files).toBe(2);
    expect(data.storage).toEqual({ used: 3 * GIB + 512, allocated: 50 * GIB });
  });

  it('narrows to 7 days', async () => {
    const data = await stats(`?ring_id=${ringId}&days=7`);
    expect(data.days).toBe(7);
    expect(data.messagesPerDay.map((d) => d.date)).toEqual([
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
    ]);
    expect(data.messagesPerDay.map((d) => d.count)).toEqual([0, 0, 0, 0, 1, 2, 3]);
    expect(data.activeMembersPerDay.map((d) => d.count)).toEqual([0, 0, 0, 0, 1, 1, 2]);
    expect(data.callsPerDay.map((d) => d.count)).toEqual([0, 0, 0, 1, 0, 0, 2]);
    expect(data.totals).toEqual({ messages: 6, calls: 3, members: 5, activeMembers: 3, files: 2 });
  });

  it('widens to 90 days', async () => {
    const data = await stats(`?ring_id=${ringId}&days=90`);
    expect(data.messagesPerDay).toHaveLength(90);
    expect(data.callsPerDay[0]!.date).toBe('2026-08-25');
    expect(countOn(data.callsPerDay, '2026-08-25')).toBe(1);
    expect(data.totals.calls).toBe(4);
    expect(countOn(data.messagesPerDay, '2026-10-23')).toBe(1);
    expect(countOn(data.messagesPerDay, '2026-10-22')).toBe(1);
    expect(data.totals.messages).toBe(10);
  });

  it('follows the clock: the window moves with "today"', async () => {
    clock.set('2026-11-23T00:30:00.000Z');
    try {
      const data = await stats(`?ring_id=${ringId}&days=7`);
      expect(data.messagesPerDay.at(-1)).toEqual({ date: '2026-11-23', count: 1 });
      expect(data.messagesPerDay[0]!.date).toBe('2026-11-17');
    } finally {
      clock.set('2026-11-22T12:00:00.000Z');
    }
  });

  it('answers zeros for a Ring without activity', async () => {
    const data = await stats(`?ring_id=${emptyRingId}&days=7`);
    expect(data.messagesPerDay.every((d) => d.count === 0)).toBe(true);
    expect(data.activeMembersPerDay.every((d) => d.count === 0)).toBe(true);
    expect(data.callsPerDay.every((d) => d.count === 0)).toBe(true);
    expect(data.totals).toEqual({ messages: 0, calls: 0, members: 0, activeMembers: 0, files: 0 });
    expect(data.storage).toEqual({ used: 0, allocated: 5 * GIB });
  });

  it("answers another customer's Ring exactly like a missing one", async () => {
    const foreign = await get(`?ring_id=${otherRingId}`);
    const missing = await get(`?ring_id=${newId()}`);
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ success: false, error: RING_MESSAGES.ringNotFound });
    expect(missing.json()).toEqual(foreign.json());
  });

  it('requires a customer session', async () => {
    const none = await get(`?ring_id=${ringId}`, {});
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
    // A Ring member's token is not a customer session.
    const member = await get(`?ring_id=${ringId}`, memberTokenHeaders);
    expect(member.statusCode).toBe(401);
    expect(member.json().error).toBe(MESSAGES.sessionExpired);
  });

  it('rejects other periods and a missing Ring id', async () => {
    for (const days of ['14', '0', '-7', 'abc', '', '30.0']) {
      const res = await get(`?ring_id=${ringId}&days=${days}`);
      expect(res.statusCode, `days=${days}`).toBe(400);
      expect(res.json()).toEqual({ success: false, error: 'Période invalide' });
    }
    for (const query of ['', '?days=30', '?ring_id=', '?ring_id=%20']) {
      const res = await get(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe(RING_MESSAGES.noRingSelected);
    }
  });
});
