/** How far back an instance can replay what it published (the instances return to Redis at most ~2 s apart). */
export const PUBLISH_WINDOW_MS = 10_000;
/** The most a window holds: beyond it the oldest entries go (those pages catch up by sequence number). */
export const PUBLISH_WINDOW_MAX_BYTES = 4 * 1024 * 1024;

/** One message this instance published to Redis: the channel and the adapter's encoded payload. */
export interface PublishedEntry {
  channel: string;
  message: Buffer;
  at: number;
}

/**
 * What this instance published to the other instances lately, so that an instance that listens
 * again after Redis returned can be given, as pushes, what was published while it was not
 * subscribed yet (issue 26): when Redis comes back, the instances reconnect at different moments,
 * and a PUBLISH reaches only those already listening. Bounded in time and bytes; holds the
 * payloads the adapter already encoded (ciphertext envelopes and routing only, as on Redis).
 */
export class PublishWindow {
  private entries: PublishedEntry[] = [];
  /** Entries before this index are gone (dropped in place, compacted now and then). */
  private head = 0;
  private bytes = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly windowMs: number = PUBLISH_WINDOW_MS,
    private readonly maxBytes: number = PUBLISH_WINDOW_MAX_BYTES,
  ) {}

  /** Records a publish that went out now (binary payloads only: the adapter's broadcasts). */
  record(channel: unknown, message: unknown): void {
    if (typeof channel !== 'string' || !(message instanceof Uint8Array)) return;
    const buffer = Buffer.isBuffer(message) ? message : Buffer.from(message);
    this.entries.push({ channel, message: buffer, at: this.now() });
    this.bytes += buffer.length;
    this.prune();
  }

  /** The entries published `msAgo` milliseconds ago or later on channels starting with `prefix`, oldest first. */
  since(msAgo: number, prefix: string): PublishedEntry[] {
    this.prune();
    const from = this.now() - Math.max(0, msAgo);
    const kept: PublishedEntry[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (entry.at >= from && entry.channel.startsWith(prefix)) kept.push(entry);
    }
    return kept;
  }

  private prune(): void {
    const oldest = this.now() - this.windowMs;
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!;
      if (entry.at >= oldest && this.bytes <= this.maxBytes) break;
      this.bytes -= entry.message.length;
      this.head++;
    }
    // Compacted once the dropped part is the larger one: each entry is moved O(1) times on average.
    if (this.head > 64 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
