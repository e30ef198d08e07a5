import { describe, expect, it } from 'vitest';
import type { ReadState } from './conversation-feed';
import { encodeEdit, encodeMessage, encodeReaction } from './message-action-encoding';
import { shownUnread, silentUnread } from './unread-discounts';

const entry = (key: string, seq: number | null, isOwn = false) => ({ key, seq, isOwn }) as never;
const ok = (text: string): ReadState => ({ state: 'ok', text });
const to = { s: 'alice', m: 'c1' };

describe('silentUnread', () => {
  it('counts the reactions and edits from others past the read mark, decrypted here', () => {
    const entries = [
      entry('a', 1),
      entry('b', 2),
      entry('c', 3),
      entry('own', 4, true),
      entry('d', 5),
      entry('pending', null),
    ];
    const reads = new Map<string, ReadState>([
      ['a', ok(encodeReaction(to, '👍', true))],
      ['b', ok('Bonjour')],
      ['c', ok(encodeReaction(to, '❤️', true))],
      ['own', ok(encodeEdit(to, 'corrigé'))],
      ['d', ok(encodeEdit(to, 'modifié'))],
      ['pending', ok(encodeReaction(to, '👍', false))],
    ]);
    // Past seq 1: c and d (the own edit and the message not stored yet do not count).
    expect(silentUnread({ entries, reads }, 1)).toBe(2);
    expect(silentUnread({ entries, reads }, 0)).toBe(3);
    expect(silentUnread({ entries, reads }, 5)).toBe(0);
    // A structured message is a message, and one not decrypted yet is counted as the server says.
    const other = new Map<string, ReadState>([
      ['b', ok(encodeMessage({ text: 'Réponse', replyTo: to }))],
      ['c', { state: 'pending' }],
    ]);
    expect(silentUnread({ entries, reads: other }, 0)).toBe(0);
  });

  it('never shows fewer than 0 unread', () => {
    expect(shownUnread(3, 2)).toBe(1);
    expect(shownUnread(1, 2)).toBe(0);
  });
});
