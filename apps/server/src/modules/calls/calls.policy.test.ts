import { CALL_MESSAGES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import {
  endingByServer,
  endingOnLeave,
  isRingingExpired,
  mayRelayCall,
  mayStartCall,
  type CallPermissionFacts,
  type RelayFacts,
} from './calls.policy';

const base: CallPermissionFacts = {
  callerId: 'a',
  callerRole: 'member',
  calleeId: 'b',
  callType: 'voice',
  ring: { allowVoice: true, allowVideo: true, voiceAdminOnly: false },
  plan: { voice: true, video: true },
};
const facts = (over: Partial<CallPermissionFacts> = {}): CallPermissionFacts => ({ ...base, ...over });

describe('mayStartCall', () => {
  it('lets a member call another member when the Ring has voice', () => {
    expect(mayStartCall(facts())).toEqual({ ok: true });
  });

  it('refuses a call to oneself before anything else', () => {
    expect(mayStartCall(facts({ calleeId: 'a', ring: { ...base.ring, allowVoice: false } }))).toEqual({
      ok: false,
      error: CALL_MESSAGES.selfCall,
    });
  });

  it('refuses every call when the Ring or the plan has no voice', () => {
    expect(mayStartCall(facts({ ring: { ...base.ring, allowVoice: false } })).ok).toBe(false);
    expect(mayStartCall(facts({ plan: { voice: false, video: true } }))).toEqual({
      ok: false,
      error: CALL_MESSAGES.voiceDisabled,
    });
  });

  it('under voiceAdminOnly lets the owner and admins call, not members', () => {
    const ring = { ...base.ring, voiceAdminOnly: true };
    expect(mayStartCall(facts({ ring }))).toEqual({ ok: false, error: CALL_MESSAGES.adminOnly });
    expect(mayStartCall(facts({ ring, callerRole: 'admin' }))).toEqual({ ok: true });
    expect(mayStartCall(facts({ ring, callerRole: 'owner' }))).toEqual({ ok: true });
    expect(mayStartCall(facts({ ring, callerRole: 'owner', callType: 'video' }))).toEqual({ ok: true });
  });

  it('refuses video unless both the Ring switch and the plan allow it; voice stays allowed', () => {
    const noRingVideo = { ring: { ...base.ring, allowVideo: false } };
    const noPlanVideo = { plan: { voice: true, video: false } };
    expect(mayStartCall(facts({ ...noRingVideo, callType: 'video' }))).toEqual({
      ok: false,
      error: CALL_MESSAGES.videoDisabled,
    });
    expect(mayStartCall(facts({ ...noPlanVideo, callType: 'video' }))).toEqual({
      ok: false,
      error: CALL_MESSAGES.videoDisabled,
    });
    expect(mayStartCall(facts({ ...noRingVideo }))).toEqual({ ok: true });
    expect(mayStartCall(facts({ ...noPlanVideo }))).toEqual({ ok: true });
  });
});

describe('call endings', () => {
  it('a ringing call is cancelled by its caller and rejected by its callee', () => {
    expect(endingOnLeave('ringing', true)).toEqual({
      status: 'cancelled',
      event: 'call_cancel',
      reason: 'cancelled',
    });
    expect(endingOnLeave('ringing', false)).toEqual({
      status: 'rejected',
      event: 'call_reject',
      reason: 'rejected',
    });
  });

  it('an accepted or connected call is hung up by either member', () => {
    for (const status of ['accepted', 'connected'] as const)
      for (const byCaller of [true, false])
        expect(endingOnLeave(status, byCaller)).toEqual({
          status: 'ended',
          event: 'call_hangup',
          reason: 'hangup',
        });
  });

  it('a call that is over cannot end again', () => {
    for (const status of ['rejected', 'cancelled', 'ended'] as const) {
      expect(endingOnLeave(status, true)).toBeUndefined();
      expect(endingByServer(status, 'peer_lost')).toBeUndefined();
    }
  });

  it('the server cancels a ringing call (timeout, lost member) and ends an accepted one', () => {
    expect(endingByServer('ringing', 'timeout')).toEqual({
      status: 'cancelled',
      event: 'call_cancel',
      reason: 'timeout',
    });
    expect(endingByServer('ringing', 'peer_lost')).toMatchObject({
      status: 'cancelled',
      reason: 'peer_lost',
    });
    expect(endingByServer('connected', 'peer_lost')).toEqual({
      status: 'ended',
      event: 'call_hangup',
      reason: 'peer_lost',
    });
  });

  it('a ringing call expires at its timeout', () => {
    const started = '2026-01-01T10:00:00.000Z';
    const at = Date.parse(started);
    expect(isRingingExpired(started, at + 29_999, 30_000)).toBe(false);
    expect(isRingingExpired(started, at + 30_000, 30_000)).toBe(true);
  });
});

describe('mayRelayCall', () => {
  const relay: RelayFacts = {
    status: 'accepted',
    callType: 'voice',
    callerRole: 'member',
    ring: { allowVoice: true, allowVideo: true, voiceAdminOnly: false },
    plan: { voice: true, video: false },
  };

  it('gives relay credentials for an answered call only', () => {
    expect(mayRelayCall(relay)).toEqual({ ok: true });
    expect(mayRelayCall({ ...relay, status: 'connected' })).toEqual({ ok: true });
    expect(mayRelayCall({ ...relay, status: 'ringing' })).toEqual({
      ok: false,
      error: CALL_MESSAGES.notAnswered,
    });
    for (const status of ['ended', 'cancelled', 'rejected'] as const)
      expect(mayRelayCall({ ...relay, status })).toEqual({ ok: false, error: CALL_MESSAGES.callOver });
  });

  it('refuses when the Ring or the plan no longer allows the call', () => {
    expect(mayRelayCall({ ...relay, plan: { voice: false, video: false } })).toEqual({
      ok: false,
      error: CALL_MESSAGES.voiceDisabled,
    });
    expect(mayRelayCall({ ...relay, ring: { ...relay.ring, allowVoice: false } }).ok).toBe(false);
    expect(mayRelayCall({ ...relay, callType: 'video' })).toEqual({
      ok: false,
      error: CALL_MESSAGES.videoDisabled,
    });
    const adminOnly = { ...relay, ring: { ...relay.ring, voiceAdminOnly: true } };
    expect(mayRelayCall(adminOnly)).toEqual({ ok: false, error: CALL_MESSAGES.adminOnly });
    expect(mayRelayCall({ ...adminOnly, callerRole: 'admin' })).toEqual({ ok: true });
  });
});
