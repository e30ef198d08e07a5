/** Last-seen times are written this long after the first one waiting, all together. */
export const LAST_SEEN_WRITE_DELAY_MS = 500;

/** Where the writer puts the times (RingRepository.touchMembers). */
export interface LastSeenStore {
  touchMembers(seenAt: ReadonlyMap<string, string>): Promise<void>;
}

/**
 * Records members' last-seen times (`ring_members.last_seen_at`, set when a socket joins and when
 * a member's last socket goes) in one statement per {@link LAST_SEEN_WRITE_DELAY_MS} instead of
 * one per join: a thousand sockets coming back to a restarted instance made a thousand updates.
 * The latest time of each member wins; writes go one after the other, in order; close() writes
 * what is waiting (the database closes after the sockets).
 */
export class LastSeenWriter {
  private waiting = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: LastSeenStore,
    private readonly onError: (error: unknown) => void,
    private readonly delayMs = LAST_SEEN_WRITE_DELAY_MS,
  ) {}

  /** `memberId` was seen at `atIso` (an ISO time). */
  touch(memberId: string, atIso: string): void {
    const known = this.waiting.get(memberId);
    if (known === undefined || known < atIso) this.waiting.set(memberId, atIso);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.delayMs);
      this.timer.unref();
    }
  }

  /** Starts writing what waits; resolves once every write started so far is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.size > 0) {
      const batch = this.waiting;
      this.waiting = new Map();
      this.writing = this.writing.then(() => this.store.touchMembers(batch)).catch(this.onError);
    }
    return this.writing;
  }
}
