import { createHmac } from 'node:crypto';
import {
  CALL_MESSAGES,
  MESSAGES,
  ZCallConfigResponse,
  type ServerToClientEvents,
  type TCallEvent,
  type TRtcRelay,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RingsTable } from '../../src/db/schema';
import { CALL_CONFIG_PER_SESSION_PER_MIN } from '../../src/modules/calls/calls.routes';
import { CALL_EVENT_LIMITS } from '../../src/modules/calls/calls.feature';
import { CallService } from '../../src/modules/calls/calls.service';
import { turnCredential } from '../../src/modules/calls/turn-credentials';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  bearer,
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
  customerToken,
  ringToken,
} from '../factories';
import { connectSocket, listen, type TestSocket } from '../socket-client';
import { turnAllocate } from '../turn-client';
import { isTurnServerAvailable, startTurnServer, type RunningTurnServer } from '../turn-server';

/**
 * Issue 13, server side: call signalling between two members of one Ring (spec 2 §4, §6, §7),
 * call records, presence in_call, and TURN credentials accepted by a real coturn.
 */

type EventName = keyof ServerToClientEvents;
interface Seen {
  name: string;
  payload: unknown;
}

/** A joined member socket that records every event it receives. */
interface Member {
  id: string;
  username: string;
  socket: TestSocket;
  seen: Seen[];
  /** Payloads of one event, in order. */
  of<T = unknown>(name: EventName): T[];
  /** Call events (call_*, ice_candidate) received. */
  callEvents(): Seen[];
}

const isCallEvent = (name: string) => name.startsWith('call_') || name === 'ice_candidate';

describe('calls', () => {
  let turn: RunningTurnServer | undefined;
  let t: TestApp;
  let baseUrl: string;
  const sockets: TestSocket[] = [];
  const turnSecret = 'turn-secret-for-tests';
  let barrierSeq = 0;

  beforeAll(async () => {
    if (isTurnServerAvailable()) turn = await startTurnServer();
    t = await buildTestApp({
      config: {
        turn: {
          urls: ['stun:127.0.0.1:3478', turn?.url ?? 'turn:127.0.0.1:3478'],
          secret: turn?.secret ?? turnSecret,
          ttlSec: 600,
        },
      },
    });
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await t.close();
    await turn?.stop();
  });

  async function ringSetup(
    options: { ring?: Partial<RingsTable>; planSlug?: string; videoEnabled?: boolean; app?: TestApp } = {},
  ) {
    const app = options.app ?? t;
    const customer = await buildCustomer(app.ctx);
    await buildSubscription(app.ctx, customer.id, {
      planSlug: options.planSlug ?? 'professional',
      video_enabled: options.videoEnabled ? 1 : 0,
    });
    const ring = await buildRing(app.ctx, customer.id, options.ring ?? {});
    return { customer, ring };
  }

  async function streamToken(app: TestApp, memberId: string): Promise<string> {
    const res = await app.app.inject({
      method: 'POST',
      url: '/api/rings/mint-stream-token.php',
      headers: bearer(await ringToken(app.ctx, memberId)),
    });
    expect(res.statusCode).toBe(200);
    return res.json().stream_token as string;
  }

  /** Connects a socket for the member (on `url`) and joins its Ring unless told not to. */
  async function connect(
    memberId: string,
    username: string,
    ringId: string,
    { url = baseUrl, app = t, join = true }: { url?: string; app?: TestApp; join?: boolean } = {},
  ): Promise<Member> {
    const socket = await connectSocket(url, await streamToken(app, memberId));
    sockets.push(socket);
    const seen: Seen[] = [];
    socket.onAny((name: string, payload: unknown) => seen.push({ name, payload }));
    if (join) expect(await socket.emitWithAck('join_ring', { ringId })).toEqual({ ok: true, ringId });
    return {
      id: memberId,
      username,
      socket,
      seen,
      of: <T>(name: EventName) => seen.filter((e) => e.name === name).map((e) => e.payload as T),
      callEvents: () => seen.filter((e) => isCallEvent(e.name)),
    };
  }

  async function member(
    ringId: string,
    overrides: Parameters<typeof buildRingMember>[2] = {},
    options: { url?: string; app?: TestApp; join?: boolean } = {},
  ): Promise<Member> {
    const row = await buildRingMember(options.app?.ctx ?? t.ctx, ringId, overrides);
    return connect(row.id, row.username, ringId, options);
  }

  /**
   * Waits until everything the server emitted to these members before now has arrived: a marker
   * event emitted after it reaches each socket after it (same server, same connection).
   */
  async function barrier(members: Member[], app: TestApp = t): Promise<void> {
    const mark = ++barrierSeq;
    for (const m of members)
      app.ctx.realtime.emitToMember(m.id, 'ring_settings_updated', { ringId: 'barrier', updated: { mark } });
    await expect
      .poll(() =>
        members.every((m) =>
          m.of<{ updated: { mark?: number } }>('ring_settings_updated').some((e) => e.updated.mark === mark),
        ),
      )
      .toBe(true);
  }

  const emit = (m: Member, event: string, payload: unknown) =>
    (
      m.socket.emitWithAck as (
        e: string,
        p: unknown,
      ) => Promise<{ ok: boolean; error?: string; callId?: string }>
    )(event, payload);

  async function invite(from: Member, to: Member, ringId: string, extra: Record<string, unknown> = {}) {
    const ack = await emit(from, 'call_invite', { ringId, toUserId: to.id, ...extra });
    return ack;
  }

  /** A call from `a` to `b` that `b` accepted. */
  async function acceptedCall(a: Member, b: Member, ringId: string): Promise<string> {
    const ack = await invite(a, b, ringId);
    expect(ack).toMatchObject({ ok: true });
    const callId = ack.callId!;
    await expect.poll(() => b.of<TCallEvent>('call_invite').some((e) => e.callId === callId)).toBe(true);
    expect(await emit(b, 'call_accept', { ringId, callId })).toEqual({ ok: true });
    await expect.poll(() => a.of<TCallEvent>('call_accept').some((e) => e.callId === callId)).toBe(true);
    return callId;
  }

  const callRow = (callId: string, app: TestApp = t) =>
    app.ctx.db.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirstOrThrow();

  it('relays a call only between its two members: the callee gets the invite, a third member nothing', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const c = await member(ring.id);
    const other = await ringSetup();
    const stranger = await member(other.ring.id);

    // What the client claims about the sender is ignored: the server stamps it.
    const ack = await invite(a, b, ring.id, { fromUserId: c.id, fromUsername: 'usurpateur' });
    expect(ack).toEqual({ ok: true, callId: expect.any(String), callType: 'voice' });
    const callId = ack.callId!;
    await expect.poll(() => b.of('call_invite').length).toBe(1);
    expect(b.of('call_invite')[0]).toEqual({
      ringId: ring.id,
      callId,
      fromUserId: a.id,
      toUserId: b.id,
      fromUsername: a.username,
      audioOnly: true,
      callType: 'voice',
      timestamp: expect.any(String),
    });

    expect(await emit(b, 'call_accept', { ringId: ring.id, callId, toUserId: a.id })).toEqual({ ok: true });
    await expect.poll(() => a.of<TCallEvent>('call_accept').length).toBe(1);
    expect(a.of<TCallEvent>('call_accept')[0]).toMatchObject({ callId, fromUserId: b.id, toUserId: a.id });

    const offer = { type: 'offer', sdp: 'v=0 offre', signature: 'sig-a' };
    expect(await emit(a, 'call_offer', { ringId: ring.id, callId, toUserId: b.id, data: offer })).toEqual({
      ok: true,
    });
    await expect.poll(() => b.of('call_offer').length).toBe(1);
    expect(b.of<TRtcRelay>('call_offer')[0]).toEqual({
      ringId: ring.id,
      callId,
      fromUserId: a.id,
      toUserId: b.id,
      data: offer,
    });
    expect(
      await emit(b, 'call_answer', { ringId: ring.id, callId, data: { type: 'answer', sdp: 'v=0' } }),
    ).toEqual({ ok: true });
    await expect.poll(() => a.of('call_answer').length).toBe(1);
    await emit(a, 'ice_candidate', {
      ringId: ring.id,
      callId,
      data: { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host' },
    });
    await emit(b, 'ice_candidate', {
      ringId: ring.id,
      callId,
      data: { candidate: 'candidate:2 1 udp 1 127.0.0.1 9 typ host' },
    });
    await expect.poll(() => a.of('ice_candidate').length + b.of('ice_candidate').length).toBe(2);
    expect(await emit(a, 'call_hangup', { ringId: ring.id, callId })).toEqual({ ok: true });
    await expect.poll(() => b.of('call_hangup').length).toBe(1);

    await barrier([a, b, c, stranger]);
    expect(c.callEvents()).toEqual([]);
    expect(stranger.callEvents()).toEqual([]);
    // Each side got the other's messages only, never its own back.
    expect(a.callEvents().map((e) => e.name)).toEqual(['call_accept', 'call_answer', 'ice_candidate']);
    expect(b.callEvents().map((e) => e.name)).toEqual([
      'call_invite',
      'call_offer',
      'ice_candidate',
      'call_hangup',
    ]);
  });

  it('refuses a call to oneself, to a member who is not online, and to a member of another Ring', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    expect(await invite(a, a, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.selfCall });

    const offline = await buildRingMember(t.ctx, ring.id);
    expect(await emit(a, 'call_invite', { ringId: ring.id, toUserId: offline.id })).toEqual({
      ok: false,
      error: CALL_MESSAGES.calleeOffline,
    });
    // Connected but not in the Ring's room yet: not online either.
    const notJoined = await member(ring.id, {}, { join: false });
    expect(await invite(a, notJoined, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.calleeOffline });

    const other = await ringSetup();
    const outsider = await member(other.ring.id);
    expect(await invite(a, outsider, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.calleeNotFound });
    // Nor can a member address a call to another Ring.
    expect(await invite(a, outsider, other.ring.id)).toEqual({ ok: false, error: MESSAGES.forbidden });

    await barrier([notJoined, outsider]);
    expect(notJoined.callEvents()).toEqual([]);
    expect(outsider.callEvents()).toEqual([]);
    const rows = await t.ctx.db.selectFrom('calls').select('id').where('ring_id', '=', ring.id).execute();
    expect(rows).toEqual([]);
  });

  it('under voiceAdminOnly refuses a plain member at the server while the owner and an admin call', async () => {
    const { ring, customer } = await ringSetup({ ring: { voice_admin_only: 1 } });
    const owner = await member(ring.id, { role: 'owner', customer_id: customer.id });
    const admin = await member(ring.id, { role: 'admin' });
    const plain = await member(ring.id);
    const target = await member(ring.id);

    expect(await invite(plain, target, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.adminOnly });
    await barrier([target]);
    expect(target.callEvents()).toEqual([]);

    const byAdmin = await invite(admin, target, ring.id);
    expect(byAdmin).toMatchObject({ ok: true });
    expect(await emit(admin, 'call_cancel', { ringId: ring.id, callId: byAdmin.callId })).toEqual({
      ok: true,
    });
    const byOwner = await invite(owner, plain, ring.id);
    expect(byOwner).toMatchObject({ ok: true });
    await expect.poll(() => plain.of('call_invite').length).toBe(1);
  });

  it('a socket’s first event sees voiceAdminOnly switched on a moment before, while another socket of the Ring had its row read', async () => {
    const { ring } = await ringSetup();
    const plain = await member(ring.id);
    const target = await member(ring.id);
    // An event of the Ring: its row is read and kept for the Ring's sockets (at most a second).
    const first = await invite(target, plain, ring.id);
    expect(first).toMatchObject({ ok: true });
    expect(await emit(target, 'call_cancel', { ringId: ring.id, callId: first.callId })).toEqual({
      ok: true,
    });
    await t.ctx.db.updateTable('rings').set({ voice_admin_only: 1 }).where('id', '=', ring.id).execute();
    // The plain member's new socket: its first event is decided on the Ring as it is now.
    const again = await connect(plain.id, plain.username, ring.id);
    expect(await invite(again, target, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.adminOnly });
  });

  it('refuses video when the Ring or the plan lacks it, and voice when the Ring has no calls', async () => {
    // Professional plan without the video option: the Ring switch alone is not enough.
    const noPlanVideo = await ringSetup({ ring: { allow_video: 1 } });
    const a1 = await member(noPlanVideo.ring.id);
    const b1 = await member(noPlanVideo.ring.id);
    expect(await invite(a1, b1, noPlanVideo.ring.id, { audioOnly: false })).toEqual({
      ok: false,
      error: CALL_MESSAGES.videoDisabled,
    });
    // Voice still works there.
    const voice = await invite(a1, b1, noPlanVideo.ring.id, { audioOnly: true });
    expect(voice).toMatchObject({ ok: true, callType: 'voice' });

    const noRingVideo = await ringSetup({ ring: { allow_video: 0 }, videoEnabled: true });
    const a2 = await member(noRingVideo.ring.id);
    const b2 = await member(noRingVideo.ring.id);
    expect(await invite(a2, b2, noRingVideo.ring.id, { audioOnly: false })).toEqual({
      ok: false,
      error: CALL_MESSAGES.videoDisabled,
    });

    const withVideo = await ringSetup({ ring: { allow_video: 1 }, videoEnabled: true });
    const a3 = await member(withVideo.ring.id);
    const b3 = await member(withVideo.ring.id);
    const video = await invite(a3, b3, withVideo.ring.id, { audioOnly: false });
    expect(video).toMatchObject({ ok: true, callType: 'video' });
    await expect.poll(() => b3.of<TCallEvent>('call_invite').length).toBe(1);
    expect(b3.of<TCallEvent>('call_invite')[0]).toMatchObject({ callType: 'video', audioOnly: false });
    expect((await callRow(video.callId!)).call_type).toBe('video');

    const noVoice = await ringSetup({ ring: { allow_voice: 0 } });
    const a4 = await member(noVoice.ring.id);
    const b4 = await member(noVoice.ring.id);
    expect(await invite(a4, b4, noVoice.ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.voiceDisabled });
    await barrier([b1, b2, b4]);
    expect(b2.callEvents()).toEqual([]);
    expect(b4.callEvents()).toEqual([]);
  });

  it('drops events for an unknown call, from a member outside the call, and signalling before the answer', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const c = await member(ring.id);
    const unknown = { ringId: ring.id, callId: '0190a0a0-0000-7000-8000-000000000000' };
    expect(await emit(a, 'call_accept', unknown)).toEqual({ ok: false, error: CALL_MESSAGES.callNotFound });
    expect(await emit(a, 'call_offer', { ...unknown, data: { sdp: 'x' } })).toEqual({
      ok: false,
      error: CALL_MESSAGES.callNotFound,
    });

    const { callId } = await invite(a, b, ring.id);
    const call = { ringId: ring.id, callId: callId! };
    // Before the answer: no offer, answer or candidate goes through, and nobody is "connected".
    expect(await emit(a, 'call_offer', { ...call, data: { sdp: 'trop tôt' } })).toEqual({
      ok: false,
      error: CALL_MESSAGES.notAnswered,
    });
    expect(await emit(b, 'ice_candidate', { ...call, data: { candidate: 'x' } })).toEqual({
      ok: false,
      error: CALL_MESSAGES.notAnswered,
    });
    expect(await emit(a, 'call_connected', call)).toEqual({ ok: false, error: CALL_MESSAGES.notAnswered });
    // The caller cannot answer its own call.
    expect(await emit(a, 'call_accept', call)).toEqual({ ok: false, error: CALL_MESSAGES.notCallee });

    // A third member knowing the callId can neither answer, end nor inject into the call.
    for (const event of ['call_accept', 'call_reject', 'call_cancel', 'call_hangup', 'call_connected'])
      expect(await emit(c, event, call)).toEqual({ ok: false, error: CALL_MESSAGES.callNotFound });
    expect(await emit(c, 'call_offer', { ...call, toUserId: b.id, data: { sdp: 'intrus' } })).toEqual({
      ok: false,
      error: CALL_MESSAGES.callNotFound,
    });

    expect(await emit(b, 'call_accept', call)).toEqual({ ok: true });
    // A payload naming someone else as the peer is refused.
    expect(await emit(a, 'call_offer', { ...call, toUserId: c.id, data: { sdp: 'x' } })).toEqual({
      ok: false,
      error: CALL_MESSAGES.wrongPeer,
    });
    // Malformed payloads never reach the service.
    expect(await emit(a, 'call_offer', { ...call })).toEqual({ ok: false, error: MESSAGES.invalidRequest });
    expect(await emit(a, 'call_offer', { ...call, data: 'x'.repeat(70_000) })).toEqual({
      ok: false,
      error: MESSAGES.invalidRequest,
    });
    expect(await emit(a, 'call_invite', { ringId: ring.id, toUserId: b.id, callId: 'pas-un-uuid' })).toEqual({
      ok: false,
      error: MESSAGES.invalidRequest,
    });

    await barrier([a, b, c]);
    expect(b.of('call_offer')).toEqual([]);
    expect(a.of('ice_candidate')).toEqual([]);
    expect(b.of('call_accept')).toEqual([]);
    expect(c.callEvents()).toEqual([]);
    expect(a.callEvents().map((e) => e.name)).toEqual(['call_accept']);
    expect((await callRow(callId!)).status).toBe('accepted');
  });

  it('keeps one call per member: a busy member is refused with a French reason until the call ends', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const c = await member(ring.id);
    const first = await invite(a, b, ring.id);
    expect(first).toMatchObject({ ok: true });
    expect(await invite(c, b, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.calleeBusy(b.username) });
    expect(await invite(a, c, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.callerBusy });
    // The callee calling back meanwhile: still one call.
    expect(await invite(b, a, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.callerBusy });

    expect(await emit(b, 'call_reject', { ringId: ring.id, callId: first.callId })).toEqual({ ok: true });
    // A client-chosen id (so the popup can open first) is used, but never one already taken.
    expect(await invite(c, a, ring.id, { callId: first.callId })).toEqual({
      ok: false,
      error: CALL_MESSAGES.callIdTaken,
    });
    const clientId = '0190a0a0-1111-7000-8000-0000000000aa';
    expect(await invite(c, b, ring.id, { callId: clientId })).toEqual({
      ok: true,
      callId: clientId,
      callType: 'voice',
    });
    expect(await invite(a, c, ring.id)).toEqual({ ok: false, error: CALL_MESSAGES.calleeBusy(c.username) });
    await barrier([a, b, c]);
    expect(b.of('call_invite')).toHaveLength(2);
    expect(c.of('call_invite')).toEqual([]);
  });

  it('lets only one of several simultaneous calls involving a member through', async () => {
    const { ring } = await ringSetup();
    const [a, b, c, d, e] = (await Promise.all([1, 2, 3, 4, 5].map(() => member(ring.id)))) as [
      Member,
      Member,
      Member,
      Member,
      Member,
    ];
    // Two callers for one callee, and the callee calling one of them back, all at once.
    const answers = await Promise.all([invite(a, b, ring.id), invite(c, b, ring.id), invite(b, a, ring.id)]);
    expect(
      answers.filter((r) => r.ok),
      JSON.stringify(answers),
    ).toHaveLength(1);
    // Two members calling each other at the same moment (glare): one call.
    const glare = await Promise.all([invite(d, e, ring.id), invite(e, d, ring.id)]);
    expect(
      glare.filter((r) => r.ok),
      JSON.stringify(glare),
    ).toHaveLength(1);
    const active = await t.ctx.db
      .selectFrom('calls')
      .select('id')
      .where('ring_id', '=', ring.id)
      .where('status', '=', 'ringing')
      .execute();
    expect(active).toHaveLength(2);
  });

  it('reject and cancel end a ringing call on both sides, other tabs included', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const bOtherTab = await connect(b.id, b.username, ring.id);

    const rejected = await invite(a, b, ring.id);
    await expect.poll(() => bOtherTab.of('call_invite').length).toBe(1);
    expect(await emit(b, 'call_reject', { ringId: ring.id, callId: rejected.callId })).toEqual({ ok: true });
    await expect.poll(() => a.of('call_reject').length).toBe(1);
    expect(a.of<TCallEvent>('call_reject')[0]).toMatchObject({
      callId: rejected.callId,
      fromUserId: b.id,
      toUserId: a.id,
      reason: 'rejected',
    });
    // The callee's other tab stops ringing; the tab that rejected already has its answer.
    await expect.poll(() => bOtherTab.of('call_reject').length).toBe(1);
    expect(await callRow(rejected.callId!)).toMatchObject({ status: 'rejected', answered_at: null });
    expect((await callRow(rejected.callId!)).ended_at).not.toBeNull();
    expect(await emit(b, 'call_accept', { ringId: ring.id, callId: rejected.callId })).toEqual({
      ok: false,
      error: CALL_MESSAGES.callOver,
    });

    const cancelled = await invite(a, b, ring.id);
    expect(await emit(a, 'call_cancel', { ringId: ring.id, callId: cancelled.callId })).toEqual({ ok: true });
    await expect.poll(() => b.of('call_cancel').length + bOtherTab.of('call_cancel').length).toBe(2);
    expect(b.of<TCallEvent>('call_cancel')[0]).toMatchObject({
      callId: cancelled.callId,
      fromUserId: a.id,
      reason: 'cancelled',
    });
    expect((await callRow(cancelled.callId!)).status).toBe('cancelled');
    await barrier([b]);
    expect(b.of('call_reject')).toEqual([]);
  });

  it('hang-up ends the call for both and the call is recorded with its times for the statistics', async () => {
    const { ring, customer } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const callId = await acceptedCall(a, b, ring.id);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await emit(b, 'call_hangup', { ringId: ring.id, callId })).toEqual({ ok: true });
    await expect.poll(() => a.of('call_hangup').length).toBe(1);
    expect(a.of<TCallEvent>('call_hangup')[0]).toMatchObject({ callId, fromUserId: b.id, reason: 'hangup' });
    // After the end nothing more is relayed.
    expect(await emit(a, 'call_offer', { ringId: ring.id, callId, data: { sdp: 'x' } })).toEqual({
      ok: false,
      error: CALL_MESSAGES.callOver,
    });

    const row = await callRow(callId);
    expect(row).toMatchObject({
      ring_id: ring.id,
      caller_member_id: a.id,
      callee_member_id: b.id,
      call_type: 'voice',
      status: 'ended',
    });
    const duration = Date.parse(row.ended_at!) - Date.parse(row.answered_at!);
    expect(duration).toBeGreaterThanOrEqual(1000);
    expect(Date.parse(row.answered_at!)).toBeGreaterThanOrEqual(Date.parse(row.started_at));

    const stats = await t.app.inject({
      method: 'GET',
      url: `/api/customer/ring-stats.php?ring_id=${ring.id}&days=7`,
      headers: bearer(await customerToken(t.ctx, customer.id)),
    });
    expect(stats.json().data.totals.calls).toBe(1);
  });

  it('a lost peer ends the call for the other side within 2 s; another open tab keeps it', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const bPopup = await connect(b.id, b.username, ring.id);
    const callId = await acceptedCall(a, b, ring.id);

    // One of B's sockets goes: B is still there.
    bPopup.socket.close();
    await barrier([a]);
    await new Promise((r) => setTimeout(r, 300));
    expect(a.of('call_hangup')).toEqual([]);
    expect((await callRow(callId)).status).toBe('accepted');

    const lostAt = Date.now();
    b.socket.close();
    await expect.poll(() => a.of('call_hangup').length, { timeout: 2000, interval: 20 }).toBe(1);
    expect(Date.now() - lostAt).toBeLessThan(2000);
    expect(a.of<TCallEvent>('call_hangup')[0]).toMatchObject({
      callId,
      fromUserId: b.id,
      reason: 'peer_lost',
    });
    expect((await callRow(callId)).status).toBe('ended');

    // A ringing call whose caller disappears stops ringing at the callee.
    const c = await member(ring.id);
    const ringing = await invite(c, a, ring.id);
    c.socket.close();
    await expect.poll(() => a.of<TCallEvent>('call_cancel').length, { timeout: 2000, interval: 20 }).toBe(1);
    expect(a.of<TCallEvent>('call_cancel')[0]).toMatchObject({ callId: ringing.callId, reason: 'peer_lost' });
  });

  it('asks the other instances whether a lost socket was the last one only for a member in a call', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const service = new CallService(t.ctx);
    const asked = vi.spyOn(t.ctx.realtime, 'isMemberConnected');
    try {
      // In no call: one query, no request to the instances (a mass disconnect sends none). Only
      // A's own are looked at: sockets closed by the tests before may still be asked about.
      await service.socketLost(a.id);
      expect(asked).not.toHaveBeenCalledWith(a.id);

      // In a call, still connected (another tab): asked, and the call goes on.
      const callId = await acceptedCall(a, b, ring.id);
      await service.socketLost(a.id);
      expect(asked).toHaveBeenCalledWith(a.id);
      expect((await callRow(callId)).status).toBe('accepted');
      expect(b.of('call_hangup')).toEqual([]);
    } finally {
      asked.mockRestore();
    }
  });

  it('shows both members in_call once connected and online again after the hang-up (events, state, info)', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const c = await member(ring.id);
    const cToken = await ringToken(t.ctx, c.id);
    const statusOf = async (id: string) => {
      const res = await t.app.inject({ method: 'GET', url: '/api/rings/info.php', headers: bearer(cToken) });
      return (res.json().users as Array<{ id: string; status: string; isOnline: boolean }>).find(
        (u) => u.id === id,
      );
    };
    const presence = () =>
      c
        .of<{ userId: string; status: string }>('presence_update')
        .filter((p) => p.userId === a.id || p.userId === b.id);

    const callId = await acceptedCall(a, b, ring.id);
    // Accepted is not yet connected.
    expect((await statusOf(a.id))?.status).toBe('online');
    const before = presence().length;

    expect(await emit(a, 'call_connected', { ringId: ring.id, callId })).toEqual({ ok: true });
    await expect
      .poll(
        () =>
          presence()
            .slice(before)
            .filter((p) => p.status === 'in_call').length,
      )
      .toBe(2);
    expect(
      new Set(
        presence()
          .slice(before)
          .map((p) => p.userId),
      ),
    ).toEqual(new Set([a.id, b.id]));
    // The other side reporting it too changes nothing.
    expect(await emit(b, 'call_connected', { ringId: ring.id, callId })).toEqual({ ok: true });
    expect(await statusOf(a.id)).toMatchObject({ status: 'in_call', isOnline: true });
    expect(await statusOf(b.id)).toMatchObject({ status: 'in_call', isOnline: true });
    expect(await statusOf(c.id)).toMatchObject({ status: 'online' });

    // A socket joining now learns who is in a call; a call popup of A joining announces in_call.
    const cLater = await connect(c.id, c.username, ring.id);
    await expect.poll(() => cLater.of('presence_state').length).toBe(1);
    const state = cLater.of<{ online: string[]; inCall: string[] }>('presence_state')[0]!;
    expect(new Set(state.inCall)).toEqual(new Set([a.id, b.id]));
    const inCallBefore = presence().length;
    await connect(a.id, a.username, ring.id);
    await expect.poll(() => presence().length).toBe(inCallBefore + 1);
    expect(presence().at(-1)).toMatchObject({ userId: a.id, status: 'in_call' });

    expect(await emit(b, 'call_hangup', { ringId: ring.id, callId })).toEqual({ ok: true });
    await expect
      .poll(
        () =>
          presence()
            .slice(inCallBefore + 1)
            .filter((p) => p.status === 'online').length,
      )
      .toBe(2);
    expect(await statusOf(a.id)).toMatchObject({ status: 'online' });
    expect(await statusOf(b.id)).toMatchObject({ status: 'online' });
  });

  it('ends the calls a stopped instance left behind: by the sweep, and before a new invite', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const b = await member(ring.id);
    const gone = await buildRingMember(t.ctx, ring.id);
    const now = Date.now();
    const row = (
      id: string,
      caller: string,
      callee: string,
      status: 'ringing' | 'connected',
      ageMs: number,
    ) => ({
      id,
      ring_id: ring.id,
      caller_member_id: caller,
      callee_member_id: callee,
      call_type: 'voice' as const,
      status,
      started_at: new Date(now - ageMs).toISOString(),
      answered_at: status === 'ringing' ? null : new Date(now - ageMs + 1000).toISOString(),
      ended_at: null,
    });
    // A connected call whose other member's instance died, and a call ringing for a minute.
    const orphan = '0190a0a0-2222-7000-8000-000000000001';
    const forgotten = '0190a0a0-2222-7000-8000-000000000002';
    await t.ctx.db
      .insertInto('calls')
      .values([
        row(orphan, gone.id, a.id, 'connected', 60_000),
        row(forgotten, b.id, gone.id, 'ringing', 60_000),
      ])
      .execute();

    await new CallService(t.ctx).sweep();
    await expect.poll(() => a.of('call_hangup').length).toBe(1);
    expect(a.of<TCallEvent>('call_hangup')[0]).toMatchObject({ callId: orphan, reason: 'peer_lost' });
    await expect.poll(() => b.of('call_cancel').length).toBe(1);
    expect(b.of<TCallEvent>('call_cancel')[0]).toMatchObject({ callId: forgotten, reason: 'timeout' });
    expect((await callRow(orphan)).status).toBe('ended');
    expect((await callRow(forgotten)).status).toBe('cancelled');

    // Without waiting for the sweep: a member held by a stale call can be called at once.
    const stale = '0190a0a0-2222-7000-8000-000000000003';
    await t.ctx.db
      .insertInto('calls')
      .values(row(stale, gone.id, b.id, 'connected', 5_000))
      .execute();
    expect(await invite(a, b, ring.id)).toMatchObject({ ok: true });
    expect((await callRow(stale)).status).toBe('ended');
  });

  it('rate-limits call events per member', async () => {
    const { ring } = await ringSetup();
    const a = await member(ring.id);
    const answers = [];
    for (let i = 0; i < CALL_EVENT_LIMITS.call_invite + 1; i++) answers.push(await invite(a, a, ring.id));
    expect(answers.slice(0, -1).every((r) => r.error === CALL_MESSAGES.selfCall)).toBe(true);
    expect(answers.at(-1)).toEqual({ ok: false, error: MESSAGES.tooManyRequests });
  });

  describe('TURN credentials', () => {
    const config = (app: TestApp, memberId: string, query: string) =>
      ringToken(app.ctx, memberId).then((token) =>
        app.app.inject({ method: 'GET', url: `/api/rings/call-config.php${query}`, headers: bearer(token) }),
      );

    it('are handed only to the two members of an answered call, bound to it, valid at most 10 minutes', async () => {
      const { ring } = await ringSetup();
      const a = await member(ring.id);
      const b = await member(ring.id);
      const c = await member(ring.id);
      const other = await ringSetup();
      const stranger = await member(other.ring.id);
      expect((await t.app.inject({ method: 'GET', url: '/api/rings/call-config.php' })).statusCode).toBe(401);
      const customer = await buildCustomer(t.ctx);
      const wrongAudience = await t.app.inject({
        method: 'GET',
        url: '/api/rings/call-config.php',
        headers: bearer(await customerToken(t.ctx, customer.id)),
      });
      expect(wrongAudience.statusCode).toBe(401);

      // No call, no relay: without a call id, or for a call that does not exist.
      const noCall = await config(t, a.id, '');
      expect(noCall.statusCode).toBe(400);
      expect(noCall.json()).toEqual({ success: false, error: CALL_MESSAGES.callIdRequired });
      expect((await config(t, a.id, '?callId=inconnu')).json()).toEqual({
        success: false,
        error: CALL_MESSAGES.callNotFound,
      });

      const ack = await invite(a, b, ring.id);
      const callId = ack.callId!;
      // Ringing: not yet, for either side.
      for (const side of [a, b]) {
        const ringing = await config(t, side.id, `?callId=${callId}`);
        expect(ringing.statusCode).toBe(409);
        expect(ringing.json()).toEqual({ success: false, error: CALL_MESSAGES.notAnswered });
      }
      await expect.poll(() => b.of<TCallEvent>('call_invite').some((e) => e.callId === callId)).toBe(true);
      expect(await emit(b, 'call_accept', { ringId: ring.id, callId })).toEqual({ ok: true });

      // A third member of the Ring and a member of another Ring: the call does not exist for them.
      for (const outsider of [c, stranger]) {
        const refused = await config(t, outsider.id, `?callId=${callId}`);
        expect(refused.statusCode).toBe(404);
        expect(refused.json()).toEqual({ success: false, error: CALL_MESSAGES.callNotFound });
      }

      const secret = turn?.secret ?? turnSecret;
      for (const side of [a, b]) {
        const before = Math.floor(Date.now() / 1000);
        const res = await config(t, side.id, `?callId=${callId}`);
        expect(res.statusCode).toBe(200);
        expect(res.headers['cache-control']).toBe('no-store');
        const body = ZCallConfigResponse.parse(res.json());
        expect(res.body).not.toContain(secret);
        expect(body.ttl).toBe(600);
        expect(body.iceServers[0]).toEqual({ urls: ['stun:127.0.0.1:3478'] });
        const relay = body.iceServers[1]!;
        expect(relay.urls).toEqual([turn?.url ?? 'turn:127.0.0.1:3478']);
        const [expiry, boundCall, memberId] = relay.username!.split(':');
        expect(boundCall).toBe(callId);
        expect(memberId).toBe(side.id);
        expect(Number(expiry)).toBeGreaterThanOrEqual(before + 600);
        expect(Number(expiry)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 600);
        expect(relay.credential).toBe(createHmac('sha1', secret).update(relay.username!).digest('base64'));
      }

      // Over: no more credentials.
      expect(await emit(a, 'call_hangup', { ringId: ring.id, callId })).toEqual({ ok: true });
      const over = await config(t, b.id, `?callId=${callId}`);
      expect(over.statusCode).toBe(409);
      expect(over.json()).toEqual({ success: false, error: CALL_MESSAGES.callOver });
    });

    it('are refused once the Ring or the plan no longer allows the call', async () => {
      const { ring, customer } = await ringSetup({ videoEnabled: true, ring: { allow_video: 1 } });
      const a = await member(ring.id);
      const b = await member(ring.id);
      const ack = await invite(a, b, ring.id, { audioOnly: false });
      expect(ack).toMatchObject({ ok: true, callType: 'video' });
      const callId = ack.callId!;
      await expect.poll(() => b.of<TCallEvent>('call_invite').some((e) => e.callId === callId)).toBe(true);
      expect(await emit(b, 'call_accept', { ringId: ring.id, callId })).toEqual({ ok: true });
      expect((await config(t, a.id, `?callId=${callId}`)).statusCode).toBe(200);

      // The plan loses its video option: the video call gets no relay.
      await t.ctx.db
        .updateTable('subscriptions')
        .set({ video_enabled: 0 })
        .where('customer_id', '=', customer.id)
        .execute();
      const noVideo = await config(t, a.id, `?callId=${callId}`);
      expect(noVideo.statusCode).toBe(403);
      expect(noVideo.json()).toEqual({ success: false, error: CALL_MESSAGES.videoDisabled });

      // The Ring turns calls off.
      await t.ctx.db
        .updateTable('subscriptions')
        .set({ video_enabled: 1 })
        .where('customer_id', '=', customer.id)
        .execute();
      await t.ctx.db.updateTable('rings').set({ allow_voice: 0 }).where('id', '=', ring.id).execute();
      const noCalls = await config(t, b.id, `?callId=${callId}`);
      expect(noCalls.statusCode).toBe(403);
      expect(noCalls.json()).toEqual({ success: false, error: CALL_MESSAGES.voiceDisabled });
    });

    it('are rate-limited per Ring session', async () => {
      const { ring } = await ringSetup();
      const a = await member(ring.id);
      const b = await member(ring.id);
      const callId = await acceptedCall(a, b, ring.id);
      const headers = bearer(await ringToken(t.ctx, a.id));
      const url = `/api/rings/call-config.php?callId=${callId}`;
      for (let i = 0; i < CALL_CONFIG_PER_SESSION_PER_MIN; i++)
        expect((await t.app.inject({ method: 'GET', url, headers })).statusCode).toBe(200);
      const refused = await t.app.inject({ method: 'GET', url, headers });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ success: false, error: MESSAGES.tooManyRequests });
    });

    it.runIf(isTurnServerAvailable())(
      'are accepted by coturn, which refuses a wrong or an expired credential',
      async () => {
        const { ring } = await ringSetup();
        const a = await member(ring.id);
        const b = await member(ring.id);
        const callId = await acceptedCall(a, b, ring.id);
        const res = await config(t, a.id, `?callId=${callId}`);
        const relay = ZCallConfigResponse.parse(res.json()).iceServers.find((s) => s.username)!;
        const server = { host: turn!.host, port: turn!.port };

        const granted = await turnAllocate({
          ...server,
          username: relay.username!,
          password: relay.credential!,
        });
        expect(granted).toMatchObject({ ok: true, relayedAddress: '127.0.0.1', integrityVerified: true });

        const wrong = await turnAllocate({ ...server, username: relay.username!, password: 'mauvais' });
        expect(wrong).toMatchObject({ ok: false, code: 401 });

        // Signed with the right secret, but its time is over.
        const expired = turnCredential(turn!.secret, `${callId}:${a.id}`, Date.now() - 2 * 3600_000, 600);
        expect(expired.expiresAt).toBeLessThan(Date.now() / 1000);
        expect(
          await turnAllocate({ ...server, username: expired.username, password: expired.credential }),
        ).toMatchObject({ ok: false, code: 401 });
        // Signed with another secret.
        const forged = turnCredential('un-autre-secret', `${callId}:${a.id}`, Date.now(), 600);
        expect(
          await turnAllocate({ ...server, username: forged.username, password: forged.credential }),
        ).toMatchObject({
          ok: false,
          code: 401,
        });
      },
    );
  });

  describe('with a short ringing timeout and no TURN configured', () => {
    let short: TestApp;
    let shortUrl: string;

    beforeAll(async () => {
      short = await buildTestApp({
        config: { callRingTimeoutMs: 1000, turn: { urls: [], secret: undefined, ttlSec: 3600 } },
      });
      shortUrl = await listen(short.app);
    });
    afterAll(async () => {
      await short.close();
    });

    it('cancels an unanswered call for both sides at the timeout', async () => {
      const { ring } = await ringSetup({ app: short });
      const a = await member(ring.id, {}, { app: short, url: shortUrl });
      const b = await member(ring.id, {}, { app: short, url: shortUrl });
      const { callId } = await invite(a, b, ring.id);
      await expect
        .poll(() => a.of('call_cancel').length + b.of('call_cancel').length, { timeout: 4000 })
        .toBe(2);
      for (const side of [a, b])
        expect(side.of<TCallEvent>('call_cancel')[0]).toMatchObject({
          callId,
          fromUserId: a.id,
          reason: 'timeout',
        });
      expect(await callRow(callId!, short)).toMatchObject({ status: 'cancelled', answered_at: null });
      expect(await emit(b, 'call_accept', { ringId: ring.id, callId })).toEqual({
        ok: false,
        error: CALL_MESSAGES.callOver,
      });
      // Both are free again.
      expect(await invite(b, a, ring.id)).toMatchObject({ ok: true });
    });

    it('answers an empty server list without TURN configuration', async () => {
      const { ring } = await ringSetup({ app: short });
      const a = await member(ring.id, {}, { app: short, url: shortUrl });
      const b = await member(ring.id, {}, { app: short, url: shortUrl });
      const { callId } = await invite(a, b, ring.id);
      expect(await emit(b, 'call_accept', { ringId: ring.id, callId })).toEqual({ ok: true });
      const res = await short.app.inject({
        method: 'GET',
        url: `/api/rings/call-config.php?callId=${callId}`,
        headers: bearer(await ringToken(short.ctx, a.id)),
      });
      expect(res.json()).toEqual({ success: true, iceServers: [], ttl: 0 });
    });
  });

  it.runIf(Boolean(process.env.TEST_REDIS_URL))(
    'works across two instances: caller on one, callee and a third member on the other',
    async () => {
      const second = await buildTestApp({
        database: t.database,
        redisKeyPrefix: t.ctx.config.redisKeyPrefix,
      });
      try {
        const secondUrl = await listen(second.app);
        const { ring } = await ringSetup();
        const a = await member(ring.id);
        const b = await member(ring.id, {}, { url: secondUrl, app: second });
        const c = await member(ring.id, {}, { url: secondUrl, app: second });

        // The callee is online on the other instance only.
        const callId = await acceptedCall(a, b, ring.id);
        expect(await emit(a, 'call_offer', { ringId: ring.id, callId, data: { sdp: 'offre' } })).toEqual({
          ok: true,
        });
        await expect.poll(() => b.of('call_offer').length).toBe(1);
        expect(await emit(b, 'call_answer', { ringId: ring.id, callId, data: { sdp: 'réponse' } })).toEqual({
          ok: true,
        });
        await expect.poll(() => a.of('call_answer').length).toBe(1);
        expect(await emit(b, 'ice_candidate', { ringId: ring.id, callId, data: { candidate: 'c' } })).toEqual(
          {
            ok: true,
          },
        );
        await expect.poll(() => a.of('ice_candidate').length).toBe(1);

        expect(await emit(b, 'call_connected', { ringId: ring.id, callId })).toEqual({ ok: true });
        await expect
          .poll(
            () =>
              c
                .of<{ userId: string; status: string }>('presence_update')
                .filter((p) => p.status === 'in_call' && (p.userId === a.id || p.userId === b.id)).length,
          )
          .toBe(2);
        // Busy is seen across instances too.
        expect(await invite(c, a, ring.id)).toEqual({
          ok: false,
          error: CALL_MESSAGES.calleeBusy(a.username),
        });
        // Two callers on two instances for one callee at the same moment: one call.
        const d = await member(ring.id);
        const e = await member(ring.id, {}, { url: secondUrl, app: second });
        const f = await member(ring.id);
        const race = await Promise.all([invite(d, f, ring.id), invite(e, f, ring.id)]);
        expect(
          race.filter((r) => r.ok),
          JSON.stringify(race),
        ).toHaveLength(1);

        expect(await emit(a, 'call_hangup', { ringId: ring.id, callId })).toEqual({ ok: true });
        await expect.poll(() => b.of('call_hangup').length).toBe(1);

        // A lost peer on the other instance.
        const second_call = await acceptedCall(a, b, ring.id);
        const lostAt = Date.now();
        b.socket.close();
        await expect
          .poll(() => a.of<TCallEvent>('call_hangup').filter((e) => e.callId === second_call).length, {
            timeout: 2000,
            interval: 20,
          })
          .toBe(1);
        expect(Date.now() - lostAt).toBeLessThan(2000);

        await barrier([c], second);
        expect(c.callEvents()).toEqual([]);
      } finally {
        await second.app.close();
      }
    },
  );
});
