import type { ChatEntry } from './chat-policy';
import type { ConversationFeed, FeedSnapshot } from './conversation-feed';
import { isSilentAction } from './message-actions';

/**
 * Reactions, edits and deletions travel as messages (message-actions.ts), so the server counts them
 * as unread. Of the messages past the read mark that this browser has loaded and decrypted, those
 * that are such control events from others: the displayed unread count leaves them out (issue 29).
 * Those not loaded stay counted (the server's count is all the browser knows of them).
 */
export function silentUnread(snapshot: Pick<FeedSnapshot, 'entries' | 'reads'>, readMark: number): number {
  let count = 0;
  for (const entry of snapshot.entries as readonly ChatEntry[]) {
    if (entry.isOwn || entry.seq === null || entry.seq <= readMark) continue;
    const read = snapshot.reads.get(entry.key);
    if (read?.state === 'ok' && isSilentAction(read.text)) count++;
  }
  return count;
}

/** The unread count to show: the server's, less the control events known here, never below 0. */
export function shownUnread(serverUnread: number, silent: number): number {
  return Math.max(0, serverUnread - silent);
}

/**
 * silentUnread of every conversation whose feed is loaded, as a store for useSyncExternalStore:
 * recomputed when a feed changes or the read marks move, a new map only when a count changed.
 */
export class UnreadDiscounts {
  private readonly listeners = new Set<() => void>();
  private readonly feeds = new Map<string, { feed: ConversationFeed; stop: () => void }>();
  private marks: ReadonlyMap<string, number> = new Map();
  private value: ReadonlyMap<string, number> = new Map();

  watch(feed: ConversationFeed): void {
    if (this.feeds.has(feed.conversationId)) return;
    this.feeds.set(feed.conversationId, { feed, stop: feed.subscribe(this.recompute) });
    this.recompute();
  }

  setMarks(marks: ReadonlyMap<string, number>): void {
    this.marks = marks;
    this.recompute();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): ReadonlyMap<string, number> => this.value;

  dispose(): void {
    for (const { stop } of this.feeds.values()) stop();
    this.feeds.clear();
  }

  private recompute = (): void => {
    const next = new Map<string, number>();
    for (const [id, { feed }] of this.feeds) {
      const mark = this.marks.get(id);
      if (mark === undefined) continue;
      const count = silentUnread(feed.getSnapshot(), mark);
      if (count > 0) next.set(id, count);
    }
    const same =
      next.size === this.value.size && [...next].every(([id, count]) => this.value.get(id) === count);
    if (same) return;
    this.value = next;
    for (const listener of this.listeners) listener();
  };
}
