import { DEFAULT_NOTIFICATION_SETTINGS, type TMessage, type TNewMessageEvent } from '@securering/contract';
import { format, isSameDay } from 'date-fns';
import { fr } from 'date-fns/locale';
import { describe, expect, it } from 'vitest';
import {
  canSend,
  cutNoticeText,
  decideNotice,
  entryFromEvent,
  entryFromMessage,
  formatCountdown,
  formatMessageTime,
  hasGap,
  highestSeq,
  isNearBottom,
  mergeEntries,
  nextPollDelay,
  noticeBody,
  noticeTypeOf,
  pollingAllowed,
  realtimePolicy,
  sendRetryDecision,
  soundOf,
  splitExpired,
  displayStart,
  ephemeralHideAt,
  formatDelay,
  type ChatEntry,
  withSignedClaims,
  serverMayRemove,
  messageTime,
} from './chat-policy';

function message(seq: number, overrides: Partial<TMessage> = {}): TMessage {
  return {
    id: `msg-${seq}`,
    seq,
    conversationId: 'room:general',
    clientMessageId: `client-${seq}`,
    epoch: 1,
    content: `envelope-${seq}`,
    messageType: 'text',
    sender: { id: 'bob', username: 'bob' },
    timestamp: '2026-11-24T10:00:00.000Z',
    isOwn: false,
    encrypted: true,
    clientEncrypted: true,
    isEphemeral: false,
    expiresAt: null,
    readAt: null,
    ...overrides,
  };
}

function event(seq: number, overrides: Partial<TNewMessageEvent> = {}): TNewMessageEvent {
  return {
    messageId: `msg-${seq}`,
    fromUsername: 'bob',
    fromUserId: 'bob',
    content: `envelope-${seq}`,
    messageType: 'text',
    conversationId: 'room:general',
    ringId: 'ring-1',
    timestamp: '2026-11-24T10:00:00.000Z',
    seq,
    clientMessageId: `client-${seq}`,
    epoch: 1,
    isEphemeral: false,
    expiresAt: null,
    ...overrides,
  };
}

function pending(clientMessageId: string, localOrder: number): ChatEntry {
  return {
    ...entryFromMessage(message(0, { clientMessageId, sender: { id: 'me', username: 'moi' }, isOwn: true })),
    id: null,
    seq: null,
    content: null,
    status: 'sending',
    localOrder,
  };
}

const seqs = (entries: readonly ChatEntry[]) => entries.map((e) => e.seq);

describe('message merge: every message exactly once, in sequence order', () => {
  it('orders by sequence number whatever the arrival order', () => {
    const merged = mergeEntries(
      [],
      [3, 1, 2].map((n) => entryFromMessage(message(n))),
    );
    expect(seqs(merged)).toEqual([1, 2, 3]);
    const more = mergeEntries(merged, [entryFromEvent(event(5), 'me'), entryFromMessage(message(4))]);
    expect(seqs(more)).toEqual([1, 2, 3, 4, 5]);
  });

  it('drops a message already there by id (socket and catch-up both deliver it)', () => {
    const first = mergeEntries([], [entryFromEvent(event(1), 'me')]);
    const again = mergeEntries(first, [entryFromMessage(message(1))]);
    expect(again).toBe(first);
    expect(again).toHaveLength(1);
  });

  it('drops a second copy with the same sender and client message id (a retried send)', () => {
    const first = mergeEntries([], [entryFromMessage(message(1))]);
    const retried = mergeEntries(first, [
      entryFromMessage(message(2, { id: 'other', clientMessageId: 'client-1' })),
    ]);
    expect(retried).toHaveLength(1);
    // The same client id from another sender is another message.
    const other = mergeEntries(first, [
      entryFromMessage(
        message(2, { clientMessageId: 'client-1', sender: { id: 'carol', username: 'carol' } }),
      ),
    ]);
    expect(other).toHaveLength(2);
  });

  it('replaces a pending bubble by its stored copy, and keeps pending ones after stored ones', () => {
    const list = mergeEntries([entryFromMessage(message(1))], [pending('c-a', 1), pending('c-b', 2)]);
    expect(list.map((e) => e.clientMessageId)).toEqual(['client-1', 'c-a', 'c-b']);
    const acked = mergeEntries(list, [
      entryFromMessage(
        message(2, { clientMessageId: 'c-b', sender: { id: 'me', username: 'moi' }, isOwn: true }),
      ),
    ]);
    expect(acked.map((e) => [e.clientMessageId, e.status])).toEqual([
      ['client-1', 'sent'],
      ['c-b', 'sent'],
      ['c-a', 'sending'],
    ]);
    // A late pending update never overwrites the stored copy.
    const late = mergeEntries(acked, [{ ...pending('c-b', 2), status: 'retrying' }]);
    expect(late).toBe(acked);
  });

  it('tracks the highest sequence number, detects gaps and never goes back', () => {
    const list = mergeEntries(
      [],
      [1, 2].map((n) => entryFromMessage(message(n))),
    );
    expect(highestSeq(list)).toBe(2);
    expect(highestSeq([], 7)).toBe(7);
    expect(hasGap(2, 3)).toBe(false);
    expect(hasGap(2, 4)).toBe(true);
    expect(hasGap(2, 2)).toBe(false);
  });

  it('splits expired ephemeral messages from the rest', () => {
    const now = Date.parse('2026-11-24T10:00:10.000Z');
    const list = [
      entryFromMessage(message(1, { isEphemeral: true, expiresAt: '2026-11-24T10:00:10.000Z' })),
      entryFromMessage(message(2, { isEphemeral: true, expiresAt: '2026-11-24T10:00:11.000Z' })),
      entryFromMessage(message(3)),
    ];
    const { kept, expired } = splitExpired(list, now);
    expect(seqs(expired)).toEqual([1]);
    expect(seqs(kept)).toEqual([2, 3]);
    // The reader's own countdown hides a message the server still keeps.
    const own = splitExpired(list, now, new Map([[list[2]!.key, now]]));
    expect(seqs(own.expired)).toEqual([1, 3]);
  });

  it('counts each reader down from its own first display of an ephemeral message (issue 25)', () => {
    const signed = { ephemeralSec: 300, sentAt: '2026-11-24T10:00:00.000Z' };
    const kept = message(1, { isEphemeral: true, expiresAt: '2026-12-01T10:00:00.000Z' });
    // Another's message: this browser's record only, none before it displays it.
    expect(ephemeralHideAt(entryFromMessage(kept), signed, undefined)).toBeUndefined();
    expect(ephemeralHideAt(entryFromMessage(kept), signed, 123)).toBe(123);
    // An own message: from the first reading by anyone, never before the signed send time.
    const own = entryFromMessage({ ...kept, isOwn: true, readAt: '2026-11-24T10:10:00.000Z' });
    expect(ephemeralHideAt(own, signed, undefined)).toBe(Date.parse('2026-11-24T10:15:00.000Z'));
    expect(ephemeralHideAt({ ...own, readAt: '2026-11-24T09:00:00.000Z' }, signed, undefined)).toBe(
      Date.parse('2026-11-24T10:05:00.000Z'),
    );
    expect(ephemeralHideAt({ ...own, readAt: null }, signed, undefined)).toBeUndefined();
    // Not ephemeral by its signature; a message from before signed delays keeps the server's expiry.
    const unsigned = { ephemeralSec: undefined, sentAt: signed.sentAt };
    expect(ephemeralHideAt(entryFromMessage(message(2)), unsigned, undefined)).toBeUndefined();
    expect(ephemeralHideAt(entryFromMessage(kept), unsigned, undefined)).toBe(
      Date.parse('2026-12-01T10:00:00.000Z'),
    );
    // The first display: the server's record of another device, between sending and now.
    const now = Date.parse('2026-11-24T10:20:00.000Z');
    expect(displayStart(null, signed.sentAt, now)).toBe(now);
    expect(displayStart('2026-11-24T10:12:00.000Z', signed.sentAt, now)).toBe(
      Date.parse('2026-11-24T10:12:00.000Z'),
    );
    expect(displayStart('2026-11-24T09:00:00.000Z', signed.sentAt, now)).toBe(Date.parse(signed.sentAt));
    expect(displayStart('2027-01-01T00:00:00.000Z', signed.sentAt, now)).toBe(now);
  });
});

describe('display rules', () => {
  it('formats the ephemeral countdown as mm:ss, rounded up, never negative', () => {
    expect(formatCountdown(10_000)).toBe('00:10');
    expect(formatCountdown(9_001)).toBe('00:10');
    expect(formatCountdown(300_000)).toBe('05:00');
    expect(formatCountdown(0)).toBe('00:00');
    expect(formatCountdown(-5000)).toBe('00:00');
    expect(formatCountdown(3_599_000)).toBe('59:59');
    expect(formatCountdown(86_400_000)).toBe('24:00:00');
    expect([10, 300, 330, 3600, 5400, 86_400].map(formatDelay)).toEqual([
      '10\u00a0s',
      '5\u00a0min',
      '5\u00a0min\u00a030\u00a0s',
      '1\u00a0h',
      '1\u00a0h\u00a030',
      '1\u00a0j',
    ]);
  });

  it('shows French short times: the hour today, the date before', () => {
    const now = new Date(2026, 10, 24, 18, 0);
    expect(formatMessageTime(new Date(2026, 10, 24, 9, 5).toISOString(), now)).toBe('09:05');
    expect(formatMessageTime(new Date(2026, 10, 23, 21, 30).toISOString(), now)).toBe('23/11/2026 21:30');
  });

  it('formats message times exactly as date-fns did (HH:mm today, dd/MM/yyyy HH:mm before)', () => {
    const now = new Date(2026, 10, 24, 18, 0);
    // Midnight, end of day, single-digit parts, a leap day, far past and future, and a spread.
    const dates = [
      new Date(2026, 10, 24, 0, 0),
      new Date(2026, 10, 24, 23, 59),
      new Date(2026, 10, 23, 23, 59),
      new Date(2024, 1, 29, 7, 3),
      new Date(2001, 0, 1, 0, 0),
      new Date(2099, 11, 31, 12, 0),
      ...Array.from({ length: 200 }, (_, i) => new Date(now.getTime() - i * 7_654_321_000 + i * 60_000)),
    ];
    for (const date of dates) {
      const expected = format(date, isSameDay(date, now) ? 'HH:mm' : 'dd/MM/yyyy HH:mm', { locale: fr });
      expect(formatMessageTime(date.toISOString(), now)).toBe(expected);
    }
    expect(() => formatMessageTime('pas une date', now)).toThrow(RangeError);
  });

  it('auto-scrolls only within 120 px of the bottom', () => {
    expect(isNearBottom({ scrollHeight: 1000, clientHeight: 400, scrollTop: 600 })).toBe(true);
    expect(isNearBottom({ scrollHeight: 1000, clientHeight: 400, scrollTop: 480 })).toBe(true);
    expect(isNearBottom({ scrollHeight: 1000, clientHeight: 400, scrollTop: 479 })).toBe(false);
    expect(isNearBottom({ scrollHeight: 300, clientHeight: 400, scrollTop: 0 })).toBe(true);
  });
});

describe('sending', () => {
  it('ignores blank text and a second send while one is in progress (spec 2 §5)', () => {
    expect(canSend('Bonjour', false)).toBe(true);
    expect(canSend('   \n\t ', false)).toBe(false);
    expect(canSend('', false)).toBe(false);
    expect(canSend('Bonjour', true)).toBe(false);
  });

  const fresh = { reencryptions: 0, retries: 0 };
  it('re-encrypts after a Ring key 409, a bounded number of times', () => {
    for (const code of ['epoch_stale', 'rotation_required', 'members_changed']) {
      expect(sendRetryDecision({ status: 409, code }, fresh, 'x')).toEqual({ action: 'reencrypt' });
    }
    expect(
      sendRetryDecision(
        { status: 409, code: 'epoch_stale', message: 'Nouvelle clé' },
        { reencryptions: 3, retries: 0 },
        'x',
      ),
    ).toEqual({ action: 'fail', message: 'Nouvelle clé' });
    expect(
      sendRetryDecision({ status: 409, code: 'epoch_conflict', message: 'Conflit' }, fresh, 'x'),
    ).toEqual({
      action: 'fail',
      message: 'Conflit',
    });
  });

  it('re-sends the same envelope after no answer, a server error or a rate limit, with a growing delay', () => {
    expect(sendRetryDecision({ status: 0 }, fresh, 'x')).toEqual({ action: 'retry', delayMs: 1000 });
    expect(sendRetryDecision({ status: 503 }, { reencryptions: 0, retries: 2 }, 'x')).toEqual({
      action: 'retry',
      delayMs: 4000,
    });
    expect(sendRetryDecision({ status: 429 }, { reencryptions: 0, retries: 5 }, 'x')).toEqual({
      action: 'retry',
      delayMs: 15_000,
    });
    expect(sendRetryDecision({ status: 0 }, { reencryptions: 0, retries: 6 }, 'Impossible')).toEqual({
      action: 'fail',
      message: 'Impossible',
    });
  });

  it('gives up at once on a refusal, with the server’s message', () => {
    expect(sendRetryDecision({ status: 400, message: 'Message trop long' }, fresh, 'x')).toEqual({
      action: 'fail',
      message: 'Message trop long',
    });
    expect(sendRetryDecision({ status: 404 }, fresh, 'Impossible d’envoyer')).toEqual({
      action: 'fail',
      message: 'Impossible d’envoyer',
    });
  });
});

describe('polling fallback (spec 2 §4, §5, §9)', () => {
  it('uses the defaults: 60 s, up to 300 s, factor 2, websocket required', () => {
    const policy = realtimePolicy(undefined);
    expect(policy).toMatchObject({
      wsRequired: true,
      pollingEnabled: false,
      initialMs: 60_000,
      maxMs: 300_000,
      factor: 2,
      heartbeatMs: 20_000,
      graceMs: 3000,
    });
    expect(pollingAllowed(policy)).toBe(false);
  });

  it('applies the minimums: initial ≥ 10 s, max ≥ initial, factor ≥ 1, heartbeat ≥ 5 s', () => {
    const policy = realtimePolicy({
      ws_required: '0',
      polling_enabled: '1',
      polling_initial_sec: '2',
      polling_max_sec: '5',
      polling_backoff_factor: '0.5',
      heartbeat_sec: '1',
    });
    expect(policy).toMatchObject({ initialMs: 10_000, maxMs: 10_000, factor: 1, heartbeatMs: 5000 });
    expect(pollingAllowed(policy)).toBe(true);
    expect(pollingAllowed(realtimePolicy({ ws_required: '1', polling_enabled: '1' }))).toBe(false);
    expect(pollingAllowed(realtimePolicy({ ws_required: '0', polling_enabled: '0' }))).toBe(false);
    expect(realtimePolicy({ polling_initial_sec: 'abc' }).initialMs).toBe(60_000);
  });

  it('grows the delay by the factor up to the max, and resets it when something arrives', () => {
    const policy = realtimePolicy({
      polling_initial_sec: '10',
      polling_max_sec: '60',
      polling_backoff_factor: '2',
    });
    let delay = nextPollDelay(policy, null, false);
    const seen = [delay];
    for (let i = 0; i < 4; i++) seen.push((delay = nextPollDelay(policy, delay, false)));
    expect(seen).toEqual([10_000, 20_000, 40_000, 60_000, 60_000]);
    expect(nextPollDelay(policy, 60_000, true)).toBe(10_000);
  });
});

describe('notices (spec 2 §3, §4, §9)', () => {
  const settings = DEFAULT_NOTIFICATION_SETTINGS;
  const base = {
    own: false,
    inView: false,
    muted: false,
    settings,
    type: 'text' as const,
    desktopPermission: 'granted' as const,
  };

  it('raises a notice with sound and desktop for a conversation not in view', () => {
    expect(decideNotice(base)).toEqual({ notify: true, sound: 'subtle', desktop: true });
  });

  it('stays silent for one’s own messages, a conversation in view, and while muted', () => {
    const silent = { notify: false, sound: null, desktop: false };
    expect(decideNotice({ ...base, own: true })).toEqual(silent);
    expect(decideNotice({ ...base, inView: true })).toEqual(silent);
    expect(decideNotice({ ...base, muted: true })).toEqual(silent);
  });

  it('follows the member’s switches and the browser permission', () => {
    expect(decideNotice({ ...base, settings: { ...settings, messageSound: false } }).sound).toBeNull();
    expect(decideNotice({ ...base, settings: { ...settings, messageDesktop: false } }).desktop).toBe(false);
    expect(decideNotice({ ...base, desktopPermission: 'default' }).desktop).toBe(false);
    expect(decideNotice({ ...base, desktopPermission: 'unsupported' }).desktop).toBe(false);
  });

  it('picks the sound of DMs, ephemeral messages and mentions, else the member’s choice', () => {
    expect(soundOf('dm', 'subtle')).toBe('dm');
    expect(soundOf('ephemeral', 'subtle')).toBe('ephemeral');
    expect(soundOf('mention', 'subtle')).toBe('mention');
    expect(soundOf('text', 'dm')).toBe('dm');
    expect(noticeTypeOf('text', 'Salut @Claire, tu viens ?', 'claire')).toBe('mention');
    expect(noticeTypeOf('text', 'Salut Claire', 'claire')).toBe('text');
    expect(noticeTypeOf('dm', '@claire', 'claire')).toBe('dm');
    expect(decideNotice({ ...base, type: 'dm' }).sound).toBe('dm');
  });

  it('cuts the text to 100 characters and never shows ciphertext or ephemeral text', () => {
    const long = 'é'.repeat(150);
    expect(Array.from(cutNoticeText(long))).toHaveLength(100);
    expect(cutNoticeText(long).endsWith('…')).toBe(true);
    expect(cutNoticeText('x'.repeat(100))).toBe('x'.repeat(100));
    expect(Array.from(cutNoticeText('😀'.repeat(120)))).toHaveLength(100);
    expect(cutNoticeText('  a\n\nb  ')).toBe('a b');
    expect(noticeBody(null, false)).toBe('Nouveau message chiffré');
    expect(noticeBody('secret', true)).not.toContain('secret');
    expect(noticeBody('Bonjour', false)).toBe('Bonjour');
  });
});

describe('signed lifetime and time against the server’s claims (issue 27 M4)', () => {
  const claims = { isEphemeral: true, expiresAt: '2020-01-01T00:00:00.000Z' };

  it('a v2 envelope replaces the server’s isEphemeral / expiresAt; a legacy one keeps them', () => {
    expect(withSignedClaims(claims, { v: 2 })).toEqual({ isEphemeral: false, expiresAt: null });
    expect(withSignedClaims({ isEphemeral: false, expiresAt: null }, { v: 2, ephemeralSec: 60 })).toEqual({
      isEphemeral: true,
      expiresAt: null,
    });
    expect(withSignedClaims(claims, { v: 1 })).toBe(claims);
    expect(withSignedClaims(claims, undefined)).toBe(claims);
    expect(serverMayRemove({ v: 2 })).toBe(false);
    expect(serverMayRemove({ v: 2, ephemeralSec: 60 })).toBe(true);
    expect(serverMayRemove({ v: 1 })).toBe(true);
  });

  it('a v2 permanent message has no countdown whatever the server claims', () => {
    const entry = { isOwn: false, readAt: null, ...claims };
    expect(
      ephemeralHideAt(
        entry,
        { ephemeralSec: undefined, sentAt: '2026-11-29T10:00:00.000Z', v: 2 },
        undefined,
      ),
    ).toBeUndefined();
    expect(
      ephemeralHideAt(
        entry,
        { ephemeralSec: undefined, sentAt: '2026-11-29T10:00:00.000Z', v: 1 },
        undefined,
      ),
    ).toBe(Date.parse(claims.expiresAt));
  });

  it('shows the signed send time once verified, the server’s only before', () => {
    expect(messageTime('2020-01-01T08:00:00.000Z', '2026-11-29T10:00:00.000Z')).toEqual({
      iso: '2026-11-29T10:00:00.000Z',
      signed: true,
    });
    expect(messageTime('2020-01-01T08:00:00.000Z', undefined)).toEqual({
      iso: '2020-01-01T08:00:00.000Z',
      signed: false,
    });
  });
});
