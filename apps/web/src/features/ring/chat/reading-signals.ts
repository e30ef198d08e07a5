import type { TReadingSignalEvent } from '@securering/contract';
import type { ReadingSettings } from '@securering/e2ee';

/**
 * Typing indicators and read receipts (issue 29), end-to-end encrypted: each signal is an envelope
 * signed and encrypted like a message (the room's epoch key, a private conversation's pairwise key)
 * whose plaintext says what it is. This browser sends one only while the verified membership log
 * says the owner switched the kind on ({@link ReadingSettings}), and shows only what the log allows.
 */

/** How long « Léa écrit… » stays after the last typing signal. */
export const TYPING_SHOW_MS = 5_000;
/** At most one typing signal per conversation this often while the member types. */
export const TYPING_SEND_EVERY_MS = 3_000;
/** A typing signal whose signed time is further than this from now is a replay: ignored. */
export const TYPING_MAX_AGE_MS = 30_000;

/** The plaintext of a signal. */
export type ReadingSignal = { k: 'typing' } | { k: 'read'; seq: number };

const MARK = 'securering-signal';

/** The plaintext to encrypt for `signal` (tagged, so that it never reads as a chat message). */
export function encodeSignal(signal: ReadingSignal): string {
  return JSON.stringify({ [MARK]: 1, ...signal });
}

/** The signal a decrypted plaintext carries, or null for anything else (never throws). */
export function parseSignal(text: string): ReadingSignal | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  if (record[MARK] !== 1) return null;
  const keys = Object.keys(record).sort().join(',');
  if (record.k === 'typing' && keys === `k,${MARK}`) return { k: 'typing' };
  if (
    record.k === 'read' &&
    keys === `k,${MARK},seq` &&
    typeof record.seq === 'number' &&
    Number.isSafeInteger(record.seq) &&
    record.seq > 0
  )
    return { k: 'read', seq: record.seq };
  return null;
}

/** Whether a typing signal may go now, the last one for the conversation having gone at `last`. */
export function shouldSendTyping(last: number | undefined, now: number): boolean {
  return last === undefined || now - last >= TYPING_SEND_EVERY_MS;
}

/** Whether a typing signal signed at `sentAt` (ISO) is fresh at `now`. */
export function freshTyping(sentAt: string, now: number): boolean {
  const at = Date.parse(sentAt);
  return Number.isFinite(at) && Math.abs(now - at) <= TYPING_MAX_AGE_MS;
}

/** What a signal needs from the room: the keys, the socket, the log's settings. */
export interface ReadingSignalDeps {
  memberId: string;
  settings(): ReadingSettings;
  /** Encrypts and signs `plaintext` for the conversation; undefined when no key is held yet. */
  encrypt(conversationId: string, plaintext: string): Promise<string | undefined>;
  /** Verifies and decrypts a signal: its signed sender, time and plaintext (throws otherwise). */
  decrypt(
    conversationId: string,
    content: string,
  ): Promise<{ senderId: string; sentAt: string; plaintext: string }>;
  /** Sends `reading_signal` (throws when not delivered). */
  emit(conversationId: string, content: string): Promise<void>;
  now?(): number;
}

/**
 * The typing and receipt state of the page's conversations: who types where (until
 * {@link TYPING_SHOW_MS} after their last signal), and how far each member read (the highest
 * sequence number its signed receipts named). A store for `useSyncExternalStore`.
 */
export class ReadingSignals {
  private readonly typers = new Map<string, Map<string, number>>();
  private readonly reads = new Map<string, Map<string, number>>();
  private readonly lastTyping = new Map<string, number>();
  private readonly lastRead = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  private version = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private deps: ReadingSignalDeps) {}

  /** The room's latest keys and socket (the page re-renders with new ones). */
  setDeps(deps: ReadingSignalDeps): void {
    this.deps = deps;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  /** The member typed in `conversationId`: a signal, at most every {@link TYPING_SEND_EVERY_MS}. */
  typing(conversationId: string): void {
    if (!this.deps.settings().typing) return;
    const now = this.now();
    if (!shouldSendTyping(this.lastTyping.get(conversationId), now)) return;
    this.lastTyping.set(conversationId, now);
    void this.send(conversationId, { k: 'typing' });
  }

  /** The member displayed `conversationId` up to `seq`: a receipt when it moved forward. */
  read(conversationId: string, seq: number): void {
    if (!this.deps.settings().receipts || seq <= (this.lastRead.get(conversationId) ?? 0)) return;
    this.lastRead.set(conversationId, seq);
    void this.send(conversationId, { k: 'read', seq }).then((sent) => {
      if (!sent && this.lastRead.get(conversationId) === seq) this.lastRead.delete(conversationId);
    });
  }

  private async send(conversationId: string, signal: ReadingSignal): Promise<boolean> {
    try {
      const content = await this.deps.encrypt(conversationId, encodeSignal(signal));
      if (content === undefined) return false;
      await this.deps.emit(conversationId, content);
      return true;
    } catch {
      return false;
    }
  }

  /** A relayed signal: verified, decrypted, and applied if the log allows its kind. */
  async receive(event: TReadingSignalEvent): Promise<void> {
    if (event.fromUserId === this.deps.memberId) return;
    const settings = this.deps.settings();
    if (!settings.typing && !settings.receipts) return;
    let opened;
    try {
      opened = await this.deps.decrypt(event.conversationId, event.content);
    } catch {
      return;
    }
    if (opened.senderId !== event.fromUserId) return;
    const signal = parseSignal(opened.plaintext);
    if (!signal) return;
    const now = this.now();
    if (signal.k === 'typing') {
      if (!this.deps.settings().typing || !freshTyping(opened.sentAt, now)) return;
      mapOf(this.typers, event.conversationId).set(opened.senderId, now + TYPING_SHOW_MS);
      this.scheduleExpiry();
    } else {
      if (!this.deps.settings().receipts) return;
      const reads = mapOf(this.reads, event.conversationId);
      if (signal.seq <= (reads.get(opened.senderId) ?? 0)) return;
      reads.set(opened.senderId, signal.seq);
      // A member who read has stopped typing there.
      this.typers.get(event.conversationId)?.delete(opened.senderId);
    }
    this.changed();
  }

  /** A message of `senderId` arrived: its typing indicator goes. */
  messageArrived(conversationId: string, senderId: string): void {
    if (this.typers.get(conversationId)?.delete(senderId)) this.changed();
  }

  /** Members typing in `conversationId` now (ids). */
  typingIn(conversationId: string): string[] {
    if (!this.deps.settings().typing) return [];
    const now = this.now();
    return [...(this.typers.get(conversationId) ?? [])].filter(([, until]) => until > now).map(([id]) => id);
  }

  /** Members (other than this one) whose receipts reached `seq` in `conversationId`. */
  readersOf(conversationId: string, seq: number): string[] {
    if (!this.deps.settings().receipts) return [];
    return [...(this.reads.get(conversationId) ?? [])]
      .filter(([id, upTo]) => id !== this.deps.memberId && upTo >= seq)
      .map(([id]) => id);
  }

  private scheduleExpiry(): void {
    clearTimeout(this.timer);
    const now = this.now();
    let next = Infinity;
    for (const typers of this.typers.values())
      for (const [id, until] of typers) {
        if (until <= now) typers.delete(id);
        else next = Math.min(next, until);
      }
    if (next !== Infinity)
      this.timer = setTimeout(
        () => {
          this.scheduleExpiry();
          this.changed();
        },
        next - now + 20,
      );
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.listeners.clear();
  }
}

function mapOf<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = map.get(key);
  if (!inner) {
    inner = new Map();
    map.set(key, inner);
  }
  return inner;
}
