import {
  CHAT_MESSAGES,
  E2EE_MESSAGES,
  EPHEMERAL_MAX_LIFETIME_SEC,
  dmConversationId,
} from '@securering/contract';
import { SECURITY_LEVELS, shouldRotateEpoch } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import {
  checkEnvelopeHeader,
  checkSendEpoch,
  ephemeralDeletionTime,
  ephemeralFor,
  mayAccessConversation,
  messagesPerEpoch,
  noticeType,
  parseConversationId,
} from './messages.policy';

const A = '01a20c9c-1927-77f5-abd5-977f5569b679';
const B = '01a20c9c-191c-729b-908a-c0e3d1b76701';

describe('parseConversationId', () => {
  it('knows the room and private conversations with sorted, distinct member ids', () => {
    expect(parseConversationId('room:general')).toEqual({ kind: 'room' });
    expect(dmConversationId(A, B)).toBe(dmConversationId(B, A));
    expect(parseConversationId(dmConversationId(A, B))).toEqual({ kind: 'dm', members: [B, A].sort() });
  });

  it('refuses anything else', () => {
    for (const id of ['room:other', `dm:${A}:${B}`, `dm:${A}:${A}`, `dm:${B}`, 'dm::', `dm:${B}:${A}:x`, ''])
      expect(parseConversationId(id), id).toBeUndefined();
  });
});

describe('mayAccessConversation', () => {
  it('opens the room to every member and a private conversation to its two participants only', () => {
    expect(mayAccessConversation({ kind: 'room', participants: [] }, A)).toBe(true);
    expect(mayAccessConversation({ kind: 'dm', participants: [A, B] }, A)).toBe(true);
    expect(mayAccessConversation({ kind: 'dm', participants: [A, B] }, 'c')).toBe(false);
  });
});

describe('checkEnvelopeHeader', () => {
  const expected = { ringId: 'r', conversationId: 'room:general', senderId: A };
  it('accepts an envelope naming this Ring, conversation and sender', () => {
    expect(checkEnvelopeHeader(expected, expected)).toBeUndefined();
  });
  it('refuses one made for another Ring, conversation or sender', () => {
    for (const changes of [{ ringId: 'x' }, { conversationId: dmConversationId(A, B) }, { senderId: B }])
      expect(checkEnvelopeHeader({ ...expected, ...changes }, expected)).toEqual({
        status: 400,
        error: E2EE_MESSAGES.envelopeMismatch,
      });
  });
});

describe('checkSendEpoch', () => {
  it('accepts the current epoch when no rotation is due', () => {
    expect(checkSendEpoch(3, { current_epoch: 3 }, false)).toBeUndefined();
  });
  it('asks for a rotation before the first epoch or when one is due', () => {
    expect(checkSendEpoch(1, { current_epoch: 0 }, true)).toEqual({
      status: 409,
      error: E2EE_MESSAGES.rotationRequired,
      code: 'rotation_required',
      currentEpoch: 0,
    });
    expect(checkSendEpoch(3, { current_epoch: 3 }, true)).toMatchObject({ code: 'rotation_required' });
  });
  it('calls an older or unknown epoch stale', () => {
    expect(checkSendEpoch(2, { current_epoch: 3 }, false)).toEqual({
      status: 409,
      error: E2EE_MESSAGES.epochStale,
      code: 'epoch_stale',
      currentEpoch: 3,
    });
    expect(checkSendEpoch(4, { current_epoch: 3 }, false)).toMatchObject({ code: 'epoch_stale' });
  });
});

describe('messagesPerEpoch', () => {
  it('stops an epoch at the message that makes its rotation due, for every level', () => {
    const now = new Date('2026-11-24T10:00:00.000Z');
    const epoch = (messageCount: number) => ({ createdAt: now.toISOString(), messageCount });
    expect(messagesPerEpoch('standard')).toBe(1000);
    expect(messagesPerEpoch('military')).toBe(100);
    for (const level of SECURITY_LEVELS) {
      expect(shouldRotateEpoch(level, epoch(messagesPerEpoch(level) - 1), now), level).toBe(false);
      expect(shouldRotateEpoch(level, epoch(messagesPerEpoch(level)), now), level).toBe(true);
    }
  });
});

describe('ephemeralFor', () => {
  const on = { ephemeral_messages: 1, auto_destroy_delay: 10 } as const;
  const off = { ephemeral_messages: 0, auto_destroy_delay: 10 } as const;
  it('follows the delay the sender signed when it is the Ring’s setting', () => {
    expect(ephemeralFor(on, true, 10)).toEqual({ ok: true, is_ephemeral: 1, ephemeral_sec: 10 });
    expect(ephemeralFor(off, false, undefined)).toEqual({ ok: true, is_ephemeral: 0, ephemeral_sec: null });
  });
  it('asks the client to encrypt again when its signed delay is not the Ring’s setting', () => {
    for (const [ring, signed, setting] of [
      [on, undefined, 10],
      [on, 300, 10],
      [off, 10, null],
    ] as const)
      expect(ephemeralFor(ring, true, signed)).toMatchObject({
        ok: false,
        refusal: { status: 409, code: 'ephemeral_changed', ephemeralSec: setting },
      });
  });
  it('refuses an ephemeral message in a Ring that has them off', () => {
    expect(ephemeralFor(off, true, undefined)).toEqual({
      ok: false,
      refusal: { status: 400, error: CHAT_MESSAGES.ephemeralNotAllowed },
    });
  });
});

describe('ephemeralDeletionTime', () => {
  const message = { createdAt: '2026-11-24T10:00:00.000Z', delaySec: 300 };
  const cap = '2026-12-01T10:00:00.000Z';
  it('waits for every member who could read it at sending, then for the delay after the last reading', () => {
    expect(ephemeralDeletionTime(message, [{ readAt: null }, { readAt: '2026-11-24T11:00:00.000Z' }])).toBe(
      cap,
    );
    expect(
      ephemeralDeletionTime(message, [
        { readAt: '2026-11-24T12:00:00.000Z' },
        { readAt: '2026-11-24T11:00:00.000Z' },
      ]),
    ).toBe('2026-11-24T12:05:00.000Z');
  });
  it('deletes it 7 days after sending at the latest, and after the delay when nobody else may read it', () => {
    expect(EPHEMERAL_MAX_LIFETIME_SEC).toBe(7 * 86_400);
    expect(ephemeralDeletionTime(message, [{ readAt: '2026-12-01T09:59:00.000Z' }])).toBe(cap);
    expect(ephemeralDeletionTime(message, [])).toBe('2026-11-24T10:05:00.000Z');
  });
});

describe('noticeType', () => {
  it('names private, ephemeral and plain messages', () => {
    expect(noticeType('dm', true)).toBe('dm');
    expect(noticeType('room', true)).toBe('ephemeral');
    expect(noticeType('room', false)).toBe('text');
  });
});
