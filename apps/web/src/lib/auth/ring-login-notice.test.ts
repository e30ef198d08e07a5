import { afterEach, describe, expect, it } from 'vitest';
import { keepPendingDraft, takePendingDraft } from './pending-draft';
import { clearRingLoginNotice, peekRingLoginNotice, setRingLoginNotice } from './ring-login-notice';

describe('why the Ring login form shows (issue 28)', () => {
  afterEach(() => clearRingLoginNotice());

  it('keeps the first reason: the 401s after a logout do not turn it into an expiry', () => {
    setRingLoginNotice({ kind: 'logged_out', email: 'a@example.com' });
    setRingLoginNotice({ kind: 'expired', email: null });
    expect(peekRingLoginNotice()).toEqual({ kind: 'logged_out', email: 'a@example.com' });
  });

  it('a suspension always says so, and an expiry after it does not replace it', () => {
    setRingLoginNotice({ kind: 'expired', email: 'm@example.com' });
    setRingLoginNotice({ kind: 'suspended', email: 'm@example.com' });
    setRingLoginNotice({ kind: 'expired', email: 'm@example.com' });
    expect(peekRingLoginNotice()?.kind).toBe('suspended');
  });
});

describe('the message an expired session interrupted', () => {
  it('is handed out once, to the same member’s same conversation only', () => {
    keepPendingDraft({ ringId: 'r1', memberId: 'm1', conversationId: 'room:general', text: 'bonjour' });
    expect(takePendingDraft('r1', 'm2', 'room:general')).toBeNull();
    expect(takePendingDraft('r2', 'm1', 'room:general')).toBeNull();
    expect(takePendingDraft('r1', 'm1', 'dm:a:b')).toBeNull();
    expect(takePendingDraft('r1', 'm1', 'room:general')).toBe('bonjour');
    expect(takePendingDraft('r1', 'm1', 'room:general')).toBeNull();
  });
});
