import type { ReadingSettings } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import {
  ReadingSignals,
  TYPING_SEND_EVERY_MS,
  TYPING_SHOW_MS,
  encodeSignal,
  parseSignal,
  shouldSendTyping,
} from './reading-signals';
import { isSignalText, receiptText, typingText } from './reading-text';

const ROOM = 'room:general';

/** Signals with a fake clock and fake crypto: an envelope is `sender|sentAt|plaintext`. */
function setup(initial: ReadingSettings) {
  let now = Date.parse('2026-11-29T08:00:00.000Z');
  let settings = initial;
  const emitted: Array<{ conversationId: string; content: string }> = [];
  const signals = new ReadingSignals({
    memberId: 'me',
    settings: () => settings,
    encrypt: (_conversationId, plaintext) =>
      Promise.resolve(`me|${new Date(now).toISOString()}|${plaintext}`),
    decrypt: (_conversationId, content) => {
      const [senderId, sentAt, ...rest] = content.split('|');
      if (!senderId || !sentAt) return Promise.reject(new Error('unverifiable'));
      return Promise.resolve({ senderId, sentAt, plaintext: rest.join('|') });
    },
    emit: (conversationId, content) => {
      emitted.push({ conversationId, content });
      return Promise.resolve();
    },
    now: () => now,
  });
  const from = (
    sender: string,
    plaintext: string,
    sentAt = new Date(now).toISOString(),
    relayedAs = sender,
  ) =>
    signals.receive({
      ringId: 'r',
      conversationId: ROOM,
      fromUserId: relayedAs,
      content: `${sender}|${sentAt}|${plaintext}`,
    });
  return {
    signals,
    emitted,
    from,
    advance: (ms: number) => (now += ms),
    set: (next: ReadingSettings) => (settings = next),
  };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
const ON = { typing: true, receipts: true };
const OFF = { typing: false, receipts: false };

describe('typing indicators and read receipts (issue 29)', () => {
  it('sends nothing while the signed log leaves them off, whatever the page asks', async () => {
    const { signals, emitted, from } = setup(OFF);
    signals.typing(ROOM);
    signals.read(ROOM, 5);
    await flush();
    expect(emitted).toEqual([]);
    await from('lea', encodeSignal({ k: 'typing' }));
    await from('lea', encodeSignal({ k: 'read', seq: 5 }));
    expect(signals.typingIn(ROOM)).toEqual([]);
    expect(signals.readersOf(ROOM, 1)).toEqual([]);
  });

  it('sends typing at most every 3 s, and receipts only forward', async () => {
    const { signals, emitted, advance } = setup(ON);
    signals.typing(ROOM);
    signals.typing(ROOM);
    advance(TYPING_SEND_EVERY_MS - 1);
    signals.typing(ROOM);
    advance(1);
    signals.typing(ROOM);
    signals.read(ROOM, 4);
    signals.read(ROOM, 4);
    signals.read(ROOM, 3);
    await flush();
    expect(emitted.map((e) => parseSignal(e.content.split('|')[2]!))).toEqual([
      { k: 'typing' },
      { k: 'typing' },
      { k: 'read', seq: 4 },
    ]);
    expect(shouldSendTyping(undefined, 0)).toBe(true);
  });

  it('shows « Léa écrit… » for 5 s after her last signal; a replayed or misattributed one is ignored', async () => {
    const { signals, from, advance } = setup(ON);
    await from('lea', encodeSignal({ k: 'typing' }));
    expect(signals.typingIn(ROOM)).toEqual(['lea']);
    advance(TYPING_SHOW_MS - 1);
    expect(signals.typingIn(ROOM)).toEqual(['lea']);
    advance(1);
    expect(signals.typingIn(ROOM)).toEqual([]);
    // An old signal replayed by the server, or Léa's signal relayed as Tom's.
    await from('lea', encodeSignal({ k: 'typing' }), '2026-11-29T07:00:00.000Z');
    await from('lea', encodeSignal({ k: 'typing' }), undefined, 'tom');
    expect(signals.typingIn(ROOM)).toEqual([]);
    // A message of hers clears it.
    await from('lea', encodeSignal({ k: 'typing' }));
    signals.messageArrived(ROOM, 'lea');
    expect(signals.typingIn(ROOM)).toEqual([]);
  });

  it('counts readers from their receipts, and stops showing when the owner switches them off', async () => {
    const { signals, from, set } = setup(ON);
    await from('lea', encodeSignal({ k: 'read', seq: 7 }));
    await from('tom', encodeSignal({ k: 'read', seq: 5 }));
    await from('tom', encodeSignal({ k: 'read', seq: 2 }));
    expect(signals.readersOf(ROOM, 5).sort()).toEqual(['lea', 'tom']);
    expect(signals.readersOf(ROOM, 6)).toEqual(['lea']);
    set({ typing: true, receipts: false });
    expect(signals.readersOf(ROOM, 5)).toEqual([]);
  });

  it('reads only its own tagged plaintexts, and says it in French', () => {
    expect(parseSignal('{"k":"typing"}')).toBeNull();
    expect(parseSignal('Léa écrit')).toBeNull();
    expect(parseSignal(JSON.stringify({ 'securering-signal': 1, k: 'read', seq: -1 }))).toBeNull();
    expect(parseSignal(JSON.stringify({ 'securering-signal': 1, k: 'typing', extra: 1 }))).toBeNull();
    // What the timeline hides if the server stores a signal as a message.
    expect(isSignalText(encodeSignal({ k: 'typing' }))).toBe(true);
    expect(isSignalText(encodeSignal({ k: 'read', seq: 3 }))).toBe(true);
    expect(isSignalText('{"securering-signal": 1}')).toBe(false);
    expect(typingText(['Léa'])).toBe('Léa écrit…');
    expect(typingText(['Léa', 'Tom'])).toBe('Léa et Tom écrivent…');
    expect(typingText(['a', 'b', 'c'])).toBe('3\u202fpersonnes écrivent…');
    expect(receiptText('dm', 1)).toBe('Lu');
    expect(receiptText('room', 2)).toBe('Lu par 2');
    expect(receiptText('room', 0)).toBeNull();
  });
});
