import {
  CALL_MESSAGES,
  type TCallAction,
  type TCallConfigResponse,
  type TCallEvent,
  type TCallInvite,
  type TCallType,
  type TRtcSignal,
} from '@securering/contract';
import type { AppContext } from '../../app-context';
import { isUniqueViolation } from '../../db/database';
import { conflict, forbidden, notFound } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import type { RingMembership } from '../rings/ring.guard';
import { RingRepository, type RingMemberRow } from '../rings/ring.repository';
import { getEntitlements } from '../subscriptions/entitlements';
import {
  SIGNALLING_STATUSES,
  endingByServer,
  endingOnLeave,
  isRingingExpired,
  mayRelayCall,
  mayStartCall,
  type CallEnding,
} from './calls.policy';
import { CallRepository, type CallRow } from './calls.repository';
import { iceServersFor } from './turn-credentials';

/** The signalling messages relayed between the two members of an accepted call. */
export type CallSignalEvent = 'call_offer' | 'call_answer' | 'ice_candidate';

interface OwnCall {
  call: CallRow;
  isCaller: boolean;
  otherId: string;
}

const participantsOf = (call: CallRow): string[] =>
  [call.caller_member_id, call.callee_member_id].filter((id): id is string => Boolean(id));

/**
 * One-to-one calls between members of one Ring (spec 2 §4, §6): the server decides who may call
 * whom, keeps each call's state in the `calls` table (shared by every instance), and relays a
 * call's events to its two members only. Every method taking a membership acts for that member
 * and first checks it takes part in the call; failures throw an AppError with a French message.
 */
export class CallService {
  private readonly calls: CallRepository;
  private readonly rings: RingRepository;
  /** Ringing timeouts started on this instance (another instance's sweep covers a lost one). */
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly ctx: AppContext) {
    this.calls = new CallRepository(ctx.db);
    this.rings = new RingRepository(ctx.db);
  }

  /**
   * STUN/TURN servers for this member's browser in one call, TURN credentials included (never the
   * secret): only for a member of the call, once it is answered, and while the Ring and the plan
   * allow it (review L1); the credentials name the call and expire within 10 minutes.
   */
  async callConfig(membership: RingMembership, callId: string): Promise<TCallConfigResponse> {
    const { call } = await this.ownCall(membership, { callId });
    const { ring } = membership;
    const [plan, caller] = await Promise.all([
      getEntitlements(this.ctx, ring.customer_id),
      call.caller_member_id ? this.rings.findMemberById(call.caller_member_id) : undefined,
    ]);
    const rule = mayRelayCall({
      status: call.status,
      callType: call.call_type,
      callerRole: caller?.role ?? 'member',
      ring: {
        allowVoice: ring.allow_voice === 1,
        allowVideo: ring.allow_video === 1,
        voiceAdminOnly: ring.voice_admin_only === 1,
      },
      plan: { voice: plan?.voice ?? false, video: plan?.video ?? false },
    });
    if (!rule.ok) {
      // Not answered yet or over: a state (409); the Ring or the plan says no: a refusal (403).
      const answered = (SIGNALLING_STATUSES as readonly string[]).includes(call.status);
      throw answered ? forbidden(rule.error) : conflict(rule.error);
    }
    const servers = iceServersFor(
      this.ctx.config.turn,
      { callId: call.id, memberId: membership.member.id },
      this.ctx.clock.now().getTime(),
    );
    return { success: true, ...servers };
  }

  /**
   * Starts a call: checks the caller may call (§6), that the callee is an active member of the
   * same Ring with a joined socket, and that neither is in another call; records the call as
   * ringing, starts the ringing timeout and sends call_invite to the callee only.
   */
  async invite(
    membership: RingMembership,
    input: TCallInvite,
    socketId?: string,
  ): Promise<{ callId: string; callType: TCallType }> {
    const { member, ring } = membership;
    const callType: TCallType = input.audioOnly === false ? 'video' : 'voice';
    const plan = await getEntitlements(this.ctx, ring.customer_id);
    const rule = mayStartCall({
      callerId: member.id,
      callerRole: member.role,
      calleeId: input.toUserId,
      callType,
      ring: {
        allowVoice: ring.allow_voice === 1,
        allowVideo: ring.allow_video === 1,
        voiceAdminOnly: ring.voice_admin_only === 1,
      },
      plan: { voice: plan?.voice ?? false, video: plan?.video ?? false },
    });
    if (!rule.ok) throw forbidden(rule.error);

    const callee = await this.rings.findMemberById(input.toUserId);
    if (!callee || callee.ring_id !== ring.id || callee.status !== 'active')
      throw notFound(CALL_MESSAGES.calleeNotFound);
    if (!(await this.ctx.realtime.isMemberOnline(callee.id))) throw conflict(CALL_MESSAGES.calleeOffline);

    // A call left behind by a stopped instance must not keep either member busy.
    for (const stale of await this.calls.findActiveOf([member.id, callee.id])) await this.settle(stale);

    const now = this.ctx.clock.now();
    const call: CallRow = {
      id: input.callId ?? newId(now.getTime()),
      ring_id: ring.id,
      caller_member_id: member.id,
      callee_member_id: callee.id,
      call_type: callType,
      status: 'ringing',
      started_at: now.toISOString(),
      answered_at: null,
      ended_at: null,
    };
    let outcome;
    try {
      outcome = await this.calls.createIfFree(call, [member.id, callee.id]);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(CALL_MESSAGES.callIdTaken);
      throw error;
    }
    if (!outcome.created) {
      if ('idTaken' in outcome) throw conflict(CALL_MESSAGES.callIdTaken);
      throw conflict(
        outcome.busy.includes(member.id)
          ? CALL_MESSAGES.callerBusy
          : CALL_MESSAGES.calleeBusy(callee.username),
      );
    }

    this.startRingingTimeout(call.id);
    this.ctx.realtime.emitToMembers([callee.id], socketId, 'call_invite', {
      ...this.eventOf(call, member.id, member.username),
      timestamp: call.started_at,
    });
    return { callId: call.id, callType };
  }

  /** The callee answers a ringing call: the caller (and the callee's other tabs) get call_accept. */
  async accept(membership: RingMembership, input: TCallAction, socketId?: string): Promise<void> {
    const { call, isCaller } = await this.ownCall(membership, input);
    if (isCaller) throw forbidden(CALL_MESSAGES.notCallee);
    if (call.status !== 'ringing') throw conflict(CALL_MESSAGES.callOver);
    const now = this.ctx.clock.now();
    if (isRingingExpired(call.started_at, now.getTime(), this.ctx.config.callRingTimeoutMs)) {
      await this.settle(call);
      throw conflict(CALL_MESSAGES.callOver);
    }
    const accepted = await this.calls.transition(call.id, ['ringing'], {
      status: 'accepted',
      answered_at: now.toISOString(),
    });
    if (!accepted) throw conflict(CALL_MESSAGES.callOver);
    this.stopRingingTimeout(call.id);
    this.ctx.realtime.emitToMembers(
      participantsOf(call),
      socketId,
      'call_accept',
      this.eventOf(call, membership.member.id, membership.member.username),
    );
  }

  /**
   * A member leaves the call (call_reject, call_cancel or call_hangup): while it rings the caller
   * cancels and the callee rejects, afterwards it is a hang-up. Both members' other sockets are told.
   */
  async leave(membership: RingMembership, input: TCallAction, socketId?: string): Promise<void> {
    // The state may move between the read and the write (an accept crossing a cancel): read again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const { call, isCaller } = await this.ownCall(membership, input);
      const ending = endingOnLeave(call.status, isCaller);
      if (!ending) throw conflict(CALL_MESSAGES.callOver);
      if (await this.finish(call, ending)) {
        await this.announceEnd(call, ending, membership.member.id, membership.member.username, socketId);
        return;
      }
    }
    throw conflict(CALL_MESSAGES.callOver);
  }

  /**
   * A member's peer connection is connected: the call becomes `connected` and both members show
   * `in_call` to the Ring. Repeating it changes nothing.
   */
  async connected(membership: RingMembership, input: TCallAction): Promise<void> {
    const { call } = await this.ownCall(membership, input);
    if (call.status === 'connected') return;
    if (call.status === 'ringing') throw conflict(CALL_MESSAGES.notAnswered);
    if (call.status !== 'accepted') throw conflict(CALL_MESSAGES.callOver);
    if (await this.calls.transition(call.id, ['accepted'], { status: 'connected' })) {
      for (const id of participantsOf(call))
        this.ctx.realtime.emitToRing(call.ring_id, 'presence_update', {
          ringId: call.ring_id,
          userId: id,
          status: 'in_call',
          lastSeen: null,
        });
      return;
    }
    const now = await this.calls.findById(call.id);
    if (now?.status !== 'connected') throw conflict(CALL_MESSAGES.callOver);
  }

  /** Relays an offer, answer or ICE candidate to the other member, once the call is accepted. */
  async relay(membership: RingMembership, event: CallSignalEvent, input: TRtcSignal): Promise<void> {
    const { call, otherId } = await this.ownCall(membership, input);
    if (call.status === 'ringing') throw conflict(CALL_MESSAGES.notAnswered);
    if (!(SIGNALLING_STATUSES as readonly string[]).includes(call.status))
      throw conflict(CALL_MESSAGES.callOver);
    this.ctx.realtime.emitToMember(otherId, event, {
      ringId: call.ring_id,
      callId: call.id,
      fromUserId: membership.member.id,
      toUserId: otherId,
      data: input.data,
    });
  }

  /**
   * One of a member's sockets is gone: if it was the member's last one on any instance, its calls
   * end and the other member is told (reason peer_lost). The member's calls are read first (one
   * indexed query; most members are in none) and the instances asked only then: a mass disconnect
   * (an instance draining, a network cut) would otherwise send every instance one request per
   * socket. A call read here that changes meanwhile is left as it is (the end is a compare-and-set).
   */
  async socketLost(memberId: string): Promise<void> {
    const active = await this.calls.findActiveOf([memberId]);
    if (active.length === 0) return;
    // Another tab or the call popup may still be open: only the member's last socket ends its calls.
    if (await this.ctx.realtime.isMemberConnected(memberId)) return;
    for (const call of active) await this.endByServer(call, 'peer_lost', memberId);
  }

  /** The ringing timeout of a call: still ringing, it is cancelled for both (reason timeout). */
  async expire(callId: string): Promise<void> {
    this.timers.delete(callId);
    // The app stopped: its database and sockets are gone; another instance's sweep takes over.
    if (!this.ctx.realtime.server) return;
    const call = await this.calls.findById(callId);
    if (call?.status === 'ringing') await this.endByServer(call, 'timeout', call.caller_member_id ?? '');
  }

  /**
   * Ends the calls left behind (scheduled): ringing past the timeout, or with a member who has no
   * socket on any instance (its instance stopped before it could tell).
   */
  async sweep(): Promise<void> {
    if (!this.ctx.realtime.server) return;
    for (const call of await this.calls.findAllActive()) await this.settle(call);
  }

  /** Members of the Ring in a connected call. */
  inCallMemberIds(ringId: string): Promise<Set<string>> {
    return this.calls.findInCallMemberIds(ringId);
  }

  /** Ends one active call if it can no longer go on: past its ringing time, or a member gone. */
  private async settle(call: CallRow): Promise<void> {
    const nowMs = this.ctx.clock.now().getTime();
    if (
      call.status === 'ringing' &&
      isRingingExpired(call.started_at, nowMs, this.ctx.config.callRingTimeoutMs)
    ) {
      await this.endByServer(call, 'timeout', call.caller_member_id ?? '');
      return;
    }
    for (const id of [call.caller_member_id, call.callee_member_id]) {
      if (!id || !(await this.ctx.realtime.isMemberConnected(id))) {
        await this.endByServer(call, 'peer_lost', id ?? '');
        return;
      }
    }
  }

  private async endByServer(call: CallRow, reason: 'timeout' | 'peer_lost', fromId: string): Promise<void> {
    const ending = endingByServer(call.status, reason);
    if (!ending || !(await this.finish(call, ending))) return;
    const from: RingMemberRow | undefined = fromId ? await this.rings.findMemberById(fromId) : undefined;
    await this.announceEnd(call, ending, fromId, from?.username ?? '', undefined);
  }

  /** Records the end if the call is still in the state it was read in: true when this call did it. */
  private async finish(call: CallRow, ending: CallEnding): Promise<boolean> {
    const done = await this.calls.transition(call.id, [call.status], {
      status: ending.status,
      ended_at: this.ctx.clock.now().toISOString(),
    });
    if (done) this.stopRingingTimeout(call.id);
    return done;
  }

  /** Tells both members (but the socket that ended it) and puts connected members back `online`. */
  private async announceEnd(
    call: CallRow,
    ending: CallEnding,
    fromId: string,
    fromUsername: string,
    exceptSocketId: string | undefined,
  ): Promise<void> {
    const members = participantsOf(call);
    this.ctx.realtime.emitToMembers(
      members,
      exceptSocketId,
      ending.event,
      this.eventOf(call, fromId, fromUsername, ending.reason),
    );
    if (call.status !== 'connected') return;
    for (const id of members)
      if (await this.ctx.realtime.isMemberOnline(id))
        this.ctx.realtime.emitToRing(call.ring_id, 'presence_update', {
          ringId: call.ring_id,
          userId: id,
          status: 'online',
          lastSeen: null,
        });
  }

  /** The call, if this member takes part in it in its own Ring; unknown and foreign calls look alike. */
  private async ownCall(
    membership: RingMembership,
    input: { callId: string; toUserId?: string | undefined },
  ): Promise<OwnCall> {
    const me = membership.member.id;
    const call = await this.calls.findById(input.callId);
    if (!call || call.ring_id !== membership.ring.id) throw notFound(CALL_MESSAGES.callNotFound);
    const isCaller = call.caller_member_id === me;
    if (!isCaller && call.callee_member_id !== me) throw notFound(CALL_MESSAGES.callNotFound);
    const otherId = isCaller ? call.callee_member_id : call.caller_member_id;
    if (!otherId) throw notFound(CALL_MESSAGES.callNotFound);
    if (input.toUserId !== undefined && input.toUserId !== otherId) throw forbidden(CALL_MESSAGES.wrongPeer);
    return { call, isCaller, otherId };
  }

  private eventOf(
    call: CallRow,
    fromId: string,
    fromUsername: string,
    reason?: CallEnding['reason'],
  ): TCallEvent {
    const toId = fromId === call.caller_member_id ? call.callee_member_id : call.caller_member_id;
    return {
      ringId: call.ring_id,
      callId: call.id,
      fromUserId: fromId,
      toUserId: toId ?? '',
      fromUsername,
      audioOnly: call.call_type === 'voice',
      callType: call.call_type,
      ...(reason ? { reason } : {}),
    };
  }

  private startRingingTimeout(callId: string): void {
    const timer = setTimeout(() => {
      this.expire(callId).catch((error: unknown) =>
        this.ctx.logger.error({ err: error, callId }, 'call ringing timeout failed'),
      );
    }, this.ctx.config.callRingTimeoutMs);
    timer.unref();
    this.timers.set(callId, timer);
  }

  private stopRingingTimeout(callId: string): void {
    const timer = this.timers.get(callId);
    if (timer) clearTimeout(timer);
    this.timers.delete(callId);
  }
}
