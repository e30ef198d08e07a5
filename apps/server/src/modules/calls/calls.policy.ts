import { CALL_MESSAGES, type RingRole, type TCallEndReason, type TCallType } from '@securering/contract';
import type { CallsTable } from '../../db/schema';

export type CallStatus = CallsTable['status'];

/** A call in one of these states holds both members: no second call for either of them. */
export const ACTIVE_CALL_STATUSES = [
  'ringing',
  'accepted',
  'connected',
] as const satisfies readonly CallStatus[];

/** States in which the peers negotiate media: offers, answers and ICE candidates are relayed. */
export const SIGNALLING_STATUSES = ['accepted', 'connected'] as const satisfies readonly CallStatus[];

/** What decides whether a member may start a call (the Ring's switches and the owner's plan). */
export interface CallPermissionFacts {
  callerId: string;
  callerRole: RingRole;
  calleeId: string;
  callType: TCallType;
  ring: { allowVoice: boolean; allowVideo: boolean; voiceAdminOnly: boolean };
  plan: { voice: boolean; video: boolean };
}

/**
 * Spec 2 §6: nobody calls themself; calls need the Ring's voice capability (switch and plan);
 * under `voiceAdminOnly` only the owner or a Ring admin starts one; a video call also needs the
 * Ring's video switch and the plan's video capability.
 */
export function mayStartCall(facts: CallPermissionFacts): { ok: true } | { ok: false; error: string } {
  if (facts.callerId === facts.calleeId) return { ok: false, error: CALL_MESSAGES.selfCall };
  if (!facts.ring.allowVoice || !facts.plan.voice) return { ok: false, error: CALL_MESSAGES.voiceDisabled };
  if (facts.ring.voiceAdminOnly && facts.callerRole !== 'owner' && facts.callerRole !== 'admin')
    return { ok: false, error: CALL_MESSAGES.adminOnly };
  if (facts.callType === 'video' && (!facts.ring.allowVideo || !facts.plan.video))
    return { ok: false, error: CALL_MESSAGES.videoDisabled };
  return { ok: true };
}

/** What decides whether a member of a call gets TURN relay credentials for it. */
export interface RelayFacts {
  status: CallStatus;
  callType: TCallType;
  /** The role the call's caller has in the Ring now. */
  callerRole: RingRole;
  ring: CallPermissionFacts['ring'];
  plan: CallPermissionFacts['plan'];
}

/**
 * TURN credentials (review L1) go only to the two members of an answered call (accepted or
 * connected, never ringing or over), and only while the Ring and the plan still allow that call
 * (the rules of mayStartCall for its caller and its type). The caller checks membership of the call.
 */
export function mayRelayCall(facts: RelayFacts): { ok: true } | { ok: false; error: string } {
  if (facts.status === 'ringing') return { ok: false, error: CALL_MESSAGES.notAnswered };
  if (!(SIGNALLING_STATUSES as readonly string[]).includes(facts.status))
    return { ok: false, error: CALL_MESSAGES.callOver };
  return mayStartCall({
    callerId: 'caller',
    callerRole: facts.callerRole,
    calleeId: 'callee',
    callType: facts.callType,
    ring: facts.ring,
    plan: facts.plan,
  });
}

export type CallEndEvent = 'call_cancel' | 'call_reject' | 'call_hangup';

export interface CallEnding {
  status: Extract<CallStatus, 'cancelled' | 'rejected' | 'ended'>;
  event: CallEndEvent;
  reason: TCallEndReason;
}

/**
 * How a call ends when one of its members leaves it (reject, cancel or hang-up: a member leaving
 * ends the call whatever it asked): while ringing the caller cancels and the callee rejects; once
 * accepted it is a hang-up. Undefined when the call is already over.
 */
export function endingOnLeave(status: CallStatus, leaverIsCaller: boolean): CallEnding | undefined {
  if (status === 'ringing')
    return leaverIsCaller
      ? { status: 'cancelled', event: 'call_cancel', reason: 'cancelled' }
      : { status: 'rejected', event: 'call_reject', reason: 'rejected' };
  if (status === 'accepted' || status === 'connected')
    return { status: 'ended', event: 'call_hangup', reason: 'hangup' };
  return undefined;
}

/**
 * How the server ends a call nobody left: a ringing call times out or loses a member (cancelled),
 * an accepted one loses a member (ended). Undefined when the call is already over.
 */
export function endingByServer(status: CallStatus, reason: 'timeout' | 'peer_lost'): CallEnding | undefined {
  if (status === 'ringing') return { status: 'cancelled', event: 'call_cancel', reason };
  if (status === 'accepted' || status === 'connected')
    return { status: 'ended', event: 'call_hangup', reason: 'peer_lost' };
  return undefined;
}

/** Whether a ringing call is past its time (so it can no longer be accepted). */
export function isRingingExpired(startedAtIso: string, nowMs: number, timeoutMs: number): boolean {
  return nowMs - Date.parse(startedAtIso) >= timeoutMs;
}
