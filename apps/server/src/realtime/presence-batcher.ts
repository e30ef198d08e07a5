import type { TPresenceUpdate } from '@securering/contract';

/** A change is sent this long after it happened, with whatever else of its Ring came meanwhile. */
export const PRESENCE_BATCH_DELAY_MS = 100;
/** Two batches of one Ring are at least this far apart (a wave of joins: a few batches a second). */
export const PRESENCE_BATCH_INTERVAL_MS = 250;
/**
 * After a batch of at least {@link PRESENCE_WAVE_CHANGES} changes (a wave: an instance restarted and
 * its members come back), the Ring's next batch waits this long instead: every batch is a frame to
 * each socket of the Ring, and during a wave those frames cost more than two seconds' delay in
 * showing who is back.
 */
export const PRESENCE_WAVE_INTERVAL_MS = 2000;
export const PRESENCE_WAVE_CHANGES = 10;

/** What one Ring's batch carries to the sender. */
export interface PresenceBatch<J> {
  ringId: string;
  /** The last change of each member, in the order of those last changes. */
  updates: TPresenceUpdate[];
  /** Who asked to be told the whole state with this batch (sockets that joined meanwhile). */
  joiners: J[];
}

export interface BatchTimers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: BatchTimers = {
  now: () => Date.now(),
  setTimeout: (run, ms) => {
    const timer = setTimeout(run, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Pending<J> {
  updates: Map<string, TPresenceUpdate>;
  joiners: J[];
  timer: unknown;
}

/**
 * Gathers the presence changes of each Ring and hands them to `send` together: one batch
 * {@link PRESENCE_BATCH_DELAY_MS} after the first change, and never sooner than
 * {@link PRESENCE_BATCH_INTERVAL_MS} after the Ring's previous batch ({@link PRESENCE_WAVE_INTERVAL_MS}
 * after a batch of a wave). Announcing each join on
 * its own costs a frame to every socket of the Ring per join, so a Ring of N members coming back
 * together (an instance restarting) made N² frames and N cross-instance lookups of who is
 * online; batched, it makes a few frames per socket a second and one lookup per batch. A member
 * who changes twice before the batch goes (joins then leaves) is sent its last change only.
 * Batches of one Ring are sent one after the other, in order, even when `send` is slow.
 */
export class PresenceBatcher<J> {
  private readonly pending = new Map<string, Pending<J>>();
  /** When each Ring's last batch left and how long it holds the next back (kept while it does). */
  private readonly lastSent = new Map<string, { at: number; intervalMs: number }>();
  /** Each Ring's batch being sent, which the next one waits for. */
  private readonly sending = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly send: (batch: PresenceBatch<J>) => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly timers: BatchTimers = realTimers,
    private readonly delays = {
      delayMs: PRESENCE_BATCH_DELAY_MS,
      intervalMs: PRESENCE_BATCH_INTERVAL_MS,
      waveIntervalMs: PRESENCE_WAVE_INTERVAL_MS,
      waveChanges: PRESENCE_WAVE_CHANGES,
    },
  ) {}

  /** Records a member's change (with the socket to send the whole state to, for a join). */
  announce(update: TPresenceUpdate, joiner?: J): void {
    if (this.closed) return;
    const { ringId } = update;
    let pending = this.pending.get(ringId);
    if (!pending) {
      pending = { updates: new Map(), joiners: [], timer: undefined };
      this.pending.set(ringId, pending);
      pending.timer = this.timers.setTimeout(() => this.flush(ringId), this.waitFor(ringId));
    }
    pending.updates.delete(update.userId);
    pending.updates.set(update.userId, update);
    if (joiner !== undefined) pending.joiners.push(joiner);
  }

  private waitFor(ringId: string): number {
    const now = this.timers.now();
    const last = this.lastSent.get(ringId);
    if (last === undefined) return this.delays.delayMs;
    const wait = Math.max(this.delays.delayMs, last.at + last.intervalMs - now);
    if (now - last.at >= last.intervalMs) this.lastSent.delete(ringId);
    return wait;
  }

  private flush(ringId: string): void {
    const pending = this.pending.get(ringId);
    if (!pending || this.closed) return;
    this.pending.delete(ringId);
    const wave = pending.updates.size >= this.delays.waveChanges;
    this.lastSent.set(ringId, {
      at: this.timers.now(),
      intervalMs: wave ? this.delays.waveIntervalMs : this.delays.intervalMs,
    });
    if (this.lastSent.size > 10_000) this.forgetOldSends();
    const batch: PresenceBatch<J> = {
      ringId,
      updates: [...pending.updates.values()],
      joiners: pending.joiners,
    };
    const previous = this.sending.get(ringId) ?? Promise.resolve();
    const current = previous.then(() => this.send(batch)).catch(this.onError);
    this.sending.set(ringId, current);
    void current.then(() => {
      if (this.sending.get(ringId) === current) this.sending.delete(ringId);
    });
  }

  private forgetOldSends(): void {
    const now = this.timers.now();
    for (const [ringId, last] of this.lastSent)
      if (now - last.at >= last.intervalMs) this.lastSent.delete(ringId);
  }

  /** Drops what is not sent yet (the sockets are closing) and waits for batches being sent. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.pending.values()) this.timers.clearTimeout(pending.timer);
    this.pending.clear();
    await Promise.all(this.sending.values());
  }
}
