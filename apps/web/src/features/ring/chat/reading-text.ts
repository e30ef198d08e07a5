/** The words of typing indicators and read receipts (issue 29), shown under the messages. */

/** « Léa écrit… », « Léa et Tom écrivent… », « 3 personnes écrivent… »; null for nobody. */
export function typingText(names: readonly string[]): string | null {
  if (names.length === 0) return null;
  if (names.length === 1) return `${names[0]} écrit…`;
  if (names.length === 2) return `${names[0]} et ${names[1]} écrivent…`;
  return `${names.length}\u202fpersonnes écrivent…`;
}

/** « Lu » in a private conversation, « Lu par 2 » in the room; null while nobody read it. */
export function receiptText(kind: 'room' | 'dm', readers: number): string | null {
  if (readers <= 0) return null;
  return kind === 'dm' ? 'Lu' : `Lu par ${readers}`;
}

/**
 * Whether a decrypted text is a typing or receipt signal (reading-signals.ts `encodeSignal`): a
 * server storing a signal's envelope as a message of its sender gets no line shown for it.
 */
export function isSignalText(text: string): boolean {
  return text.startsWith('{"securering-signal":1,');
}
