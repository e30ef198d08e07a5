import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  getOngoingCalls,
  isCallPopup,
  isWatchingCall,
  markCallAnswered,
  markCallOver,
  openCallPopup,
  subscribeOngoingCalls,
} from './call-popups';
import { CALL_POPUP_CHECK_MS, type CallParams } from './call-policy';

const params = (callId: string): CallParams => ({
  ringId: 'ring-1',
  callId,
  peerId: 'bob',
  peerName: 'bob',
  audioOnly: true,
  incoming: false,
});

function opener() {
  const popup = { closed: false };
  const open = vi.fn((_url?: string, _name?: string, _features?: string) => popup as unknown as Window);
  return { popup, self: { open } as unknown as Window, open };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('call popups (spec 2 §4, §9)', () => {
  it('opens the call URL in a 900×700 window named after the call', () => {
    const { self, open } = opener();
    expect(openCallPopup(params('c1'), () => undefined, self)).toBe(true);
    const [url, name, features] = open.mock.calls[0]!;
    expect(url).toMatch(
      /^\/ring\?voice=1&peerId=bob&peerName=bob&audioOnly=1&incoming=0&callId=c1&ringId=ring-1$/,
    );
    expect(name).toBe('securering-call-c1');
    expect(features).toContain('width=900');
    expect(features).toContain('height=700');
    markCallOver('c1');
  });

  it('checks every 500 ms: closed before an answer → cancel, after → hang-up, once', () => {
    const first = opener();
    const closed = vi.fn();
    openCallPopup(params('c2'), closed, first.self);
    vi.advanceTimersByTime(CALL_POPUP_CHECK_MS * 3);
    expect(closed).not.toHaveBeenCalled();
    first.popup.closed = true;
    vi.advanceTimersByTime(CALL_POPUP_CHECK_MS);
    expect(closed).toHaveBeenCalledExactlyOnceWith(false);
    vi.advanceTimersByTime(CALL_POPUP_CHECK_MS * 4);
    expect(closed).toHaveBeenCalledTimes(1);
    expect(isWatchingCall('c2')).toBe(false);

    const second = opener();
    const hungUp = vi.fn();
    openCallPopup(params('c3'), hungUp, second.self);
    markCallAnswered('c3');
    second.popup.closed = true;
    vi.advanceTimersByTime(CALL_POPUP_CHECK_MS);
    expect(hungUp).toHaveBeenCalledExactlyOnceWith(true);
  });

  it('a call already over sends nothing when its popup closes; a blocked popup says so', () => {
    const { popup, self } = opener();
    const closed = vi.fn();
    openCallPopup(params('c4'), closed, self);
    markCallOver('c4');
    popup.closed = true;
    vi.advanceTimersByTime(CALL_POPUP_CHECK_MS * 2);
    expect(closed).not.toHaveBeenCalled();

    const blocked = { open: () => null } as unknown as Window;
    expect(openCallPopup(params('c5'), closed, blocked)).toBe(false);
    expect(isWatchingCall('c5')).toBe(false);
  });

  it('an answered call whose popup is open is « en cours » for the room until it ends (issue 28 « Retour »)', () => {
    const { popup, self } = opener();
    const focus = vi.fn();
    Object.assign(popup, { focus });
    const changed = vi.fn();
    const stop = subscribeOngoingCalls(changed);
    openCallPopup(params('c6'), () => undefined, self);
    expect(getOngoingCalls()).toEqual([]);
    expect(isCallPopup('c6', popup)).toBe(true);
    expect(isCallPopup('c6', {})).toBe(false);
    markCallAnswered('c6');
    expect(getOngoingCalls().map((c) => c.params.callId)).toEqual(['c6']);
    getOngoingCalls()[0]!.focus();
    expect(focus).toHaveBeenCalledOnce();
    // The popup closed (hang-up from the room): nothing ongoing any more.
    popup.closed = true;
    vi.advanceTimersByTime(CALL_POPUP_CHECK_MS);
    expect(getOngoingCalls()).toEqual([]);
    expect(changed).toHaveBeenCalledTimes(2);

    openCallPopup(params('c7'), () => undefined, opener().self);
    markCallAnswered('c7');
    markCallOver('c7');
    expect(getOngoingCalls()).toEqual([]);
    stop();
  });
});
