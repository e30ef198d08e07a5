import { describe, expect, it } from 'vitest';
import {
  CALL_NOTICE_PREFIX,
  callNoticeText,
  displayTextOf,
  encodeCallNotice,
  formatCallLength,
  neutralizeTypedText,
  outcomeOf,
  parseCallNotice,
} from './call-notice';
import { securityBadge } from './call-policy';

const CALL = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';

describe('call entries in the private conversation (issue 29)', () => {
  it('round-trips an entry and reads it as the callee and as the caller', () => {
    const missed = parseCallNotice(
      encodeCallNotice({ callId: CALL, video: false, outcome: 'missed', durationSec: 0 }),
    );
    expect(missed).toEqual({ v: 1, callId: CALL, video: false, outcome: 'missed', durationSec: 0 });
    expect(callNoticeText(missed!, { own: false, senderName: 'Claire' })).toBe('Appel manqué de Claire');
    expect(callNoticeText(missed!, { own: true, senderName: 'Claire' })).toBe('Appel vocal sans réponse');

    const answered = parseCallNotice(
      encodeCallNotice({ callId: CALL, video: true, outcome: 'answered', durationSec: 181.4 }),
    );
    expect(answered?.durationSec).toBe(181);
    for (const own of [true, false])
      expect(callNoticeText(answered!, { own, senderName: 'Claire' })).toBe('Appel vidéo · 3\u202fmin');
    const declined = parseCallNotice(
      encodeCallNotice({ callId: CALL, video: false, outcome: 'declined', durationSec: 0 }),
    );
    expect(callNoticeText(declined!, { own: false, senderName: 'Claire' })).toBe(
      'Appel vocal de Claire refusé',
    );
  });

  it('an ordinary or malformed text is no call entry', () => {
    for (const text of [
      'Appel manqué de Claire',
      `${CALL_NOTICE_PREFIX}{`,
      `${CALL_NOTICE_PREFIX}{"v":2,"callId":"x","video":false,"outcome":"missed","durationSec":0}`,
      `${CALL_NOTICE_PREFIX}{"v":1,"callId":"x","video":false,"outcome":"won","durationSec":0}`,
      `${CALL_NOTICE_PREFIX}{"v":1,"callId":"x","video":false,"outcome":"answered","durationSec":-1}`,
      `${CALL_NOTICE_PREFIX}{"v":1,"callId":"x","video":false,"outcome":"answered","durationSec":1.5}`,
      `${CALL_NOTICE_PREFIX}{"v":1,"callId":"x","video":"no","outcome":"missed","durationSec":0}`,
    ])
      expect(parseCallNotice(text)).toBeNull();
    expect(displayTextOf('bonjour', { own: false, senderName: 'Claire' })).toBe('bonjour');
  });

  it('typed text never passes for a call entry', () => {
    const forged = encodeCallNotice({ callId: CALL, video: false, outcome: 'missed', durationSec: 0 });
    expect(parseCallNotice(neutralizeTypedText(forged))).toBeNull();
    expect(neutralizeTypedText('bonjour')).toBe('bonjour');
  });

  it('the outcome from the caller’s side, and the length as shown', () => {
    const none = { answered: false, connected: false };
    expect(outcomeOf('timeout', none)).toBe('missed');
    expect(outcomeOf('cancelled', none)).toBe('missed');
    expect(outcomeOf('rejected', none)).toBe('declined');
    expect(outcomeOf('hangup', { answered: true, connected: false })).toBe('failed');
    expect(outcomeOf('hangup', { answered: true, connected: true })).toBe('answered');
    expect(outcomeOf('peer_lost', { answered: true, connected: true })).toBe('answered');
    expect(formatCallLength(42)).toBe('42\u202fs');
    expect(formatCallLength(89)).toBe('1\u202fmin');
    expect(formatCallLength(3900)).toBe('1\u202fh\u202f05');
  });
});

describe('the call screen’s security badge (issue 28)', () => {
  it('says « non vérifiée » only when the check failed, never while ringing or after an unanswered call', () => {
    expect(securityBadge('pending', 'outgoing')).toBeNull();
    expect(securityBadge('pending', 'incoming')).toBeNull();
    expect(securityBadge('pending', 'ended')).toBeNull();
    expect(securityBadge('pending', 'connecting')).toBe('checking');
    expect(securityBadge('verified', 'ended')).toBe('verified');
    expect(securityBadge('refused', 'ended')).toBe('refused');
    expect(securityBadge('unverified', 'ended')).toBe('unverified');
  });
});
