import { ROOM_CONVERSATION_ID } from '@securering/contract';
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { RingSocket } from '@/lib/realtime';
import { useRingKeys, type RingKeys } from '../e2ee/use-ring-keys';
import { useRingEvent, useRingSocket } from '../realtime/ring-socket';
import type { ReadingSignalDeps, ReadingSignals } from './reading-signals';
import { receiptText, typingText } from './reading-text';

const ReadingContext = createContext<ReadingSignals | null>(null);

/** The page's typing and receipt state (null outside a chat). */
export function useReadingSignals(): ReadingSignals | null {
  return useContext(ReadingContext);
}

/**
 * Typing indicators and read receipts of the page's conversations (issue 29): encrypted signals on
 * `reading_signal`, sent and shown only while the verified membership log allows them.
 */
export function ReadingStateProvider({ children }: { children: ReactNode }) {
  const keys = useRingKeys();
  const { socket } = useRingSocket();
  const enabled = keys.reading.typing || keys.reading.receipts;
  // Loaded once the owner switched one on (off by default: nothing of it in the room's first load).
  const [signals, setSignals] = useState<ReadingSignals | null>(null);
  useEffect(() => {
    if (!enabled || signals) return;
    let cancelled = false;
    void import('./reading-signals').then(({ ReadingSignals: Signals }) => {
      if (!cancelled) setSignals(new Signals(signalDeps(keys, socket)));
    });
    return () => {
      cancelled = true;
    };
  }, [enabled, signals, keys, socket]);
  useEffect(() => signals?.setDeps(signalDeps(keys, socket)), [signals, keys, socket]);
  useEffect(() => () => signals?.dispose(), [signals]);
  useRingEvent('reading_signal', (event) => void signals?.receive(event));
  useRingEvent('new_message', (event) => signals?.messageArrived(event.conversationId, event.fromUserId));
  return <ReadingContext.Provider value={signals}>{children}</ReadingContext.Provider>;
}

/** What the signals use of the room: its keys (and the log's settings) and its socket. */
function signalDeps(keys: RingKeys, socket: RingSocket | null): ReadingSignalDeps {
  return {
    memberId: keys.memberId,
    settings: () => keys.reading,
    encrypt: async (conversationId, plaintext) => {
      const epochKey = keys.currentEpochKey();
      if (!epochKey || keys.state !== 'active') return undefined;
      return (await keys.encryptText(conversationId, plaintext, epochKey)).content;
    },
    decrypt: async (conversationId, content) => {
      const { header, plaintext } = await keys.decryptText(content, conversationId);
      return { senderId: header.senderId, sentAt: header.sentAt, plaintext };
    },
    emit: async (conversationId, content) => {
      if (!socket?.connected) throw new Error('hors ligne');
      const ack = await socket
        .timeout(10_000)
        .emitWithAck('reading_signal', { ringId: keys.ringId, conversationId, content });
      if (!ack.ok) throw new Error(ack.error);
    },
  };
}

function useVersion(signals: ReadingSignals | null): number {
  return useSyncExternalStore(signals?.subscribe ?? noopSubscribe, signals?.getVersion ?? zero, zero);
}
const noopSubscribe = () => () => undefined;
const zero = () => 0;

/** « Léa écrit… » under the messages of `conversationId` (an empty live region otherwise). */
export function TypingLine({
  conversationId,
  nameOf,
}: {
  conversationId: string;
  nameOf: (memberId: string) => string | undefined;
}) {
  const signals = useReadingSignals();
  useVersion(signals);
  const names = (signals?.typingIn(conversationId) ?? []).map((id) => nameOf(id) ?? 'Un membre');
  const text = typingText(names);
  if (!signals) return null;
  return (
    <p role="status" data-testid="typing-line" className="h-5 truncate px-4 text-xs italic text-slate-500">
      {text ?? ''}
    </p>
  );
}

/** « Lu » / « Lu par 2 » under one's own sent message, from the readers' signed receipts. */
export function ReadReceiptMark({
  conversationId,
  seq,
  nameOf,
}: {
  conversationId: string;
  seq: number | null;
  nameOf?: ((memberId: string) => string | undefined) | undefined;
}) {
  const signals = useReadingSignals();
  useVersion(signals);
  if (!signals || seq === null) return null;
  const readers = signals.readersOf(conversationId, seq);
  const text = receiptText(conversationId === ROOM_CONVERSATION_ID ? 'room' : 'dm', readers.length);
  if (!text) return null;
  return (
    <span
      data-testid="read-receipt"
      className="text-xs text-slate-500"
      title={`Lu par ${readers.map((id) => nameOf?.(id) ?? 'un membre').join(', ')}`}
    >
      {text}
    </span>
  );
}
