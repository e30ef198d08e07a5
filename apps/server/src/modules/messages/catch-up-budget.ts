/**
 * Catch-up is paged and bounded (issue 26): one reconnecting page gets at most
 * CATCH_UP_MAX_BYTES of envelopes per answer (join_ring's `missed`, or a get.php page after
 * `since`; the database read itself is sized to it: fitCatchUp), the rest with `hasMore` (the
 * page asks get.php for the next page when it has shown these), and at most CATCH_UP_CONCURRENCY
 * such answers are in the works at once in one process, from their read until they are written
 * out, the others waiting their turn. So 50 pages catching up at once hold at most
 * CATCH_UP_CONCURRENCY answers of CATCH_UP_MAX_BYTES at a time, however far behind they are.
 */

/**
 * Envelope bytes (UTF-8, as stored) one catch-up answer carries at most (its first message always
 * goes). An envelope is JSON of identifiers and base64: a byte per character in practice.
 */
export const CATCH_UP_MAX_BYTES = 512 * 1024;
/** Catch-up reads (join_ring `missed`, get.php after `since`) running at once in one process. */
export const CATCH_UP_CONCURRENCY = 4;

/**
 * How many of the next messages, in order, a catch-up answer reads and sends, from their sizes
 * alone (the database gives the sizes first, then only these messages are read — no envelope is
 * read that is not sent): the first ones while their sizes fit in `maxBytes`; with `atLeastOne`,
 * the first one whatever its size, so a page always moves forward. Pure.
 */
export function fitCatchUp(sizes: readonly number[], maxBytes: number, atLeastOne: boolean): number {
  let used = 0;
  let count = 0;
  for (const size of sizes) {
    if ((count > 0 || !atLeastOne) && used + size > maxBytes) break;
    used += size;
    count++;
  }
  return count;
}

/** The longest a finished task keeps its slot while its answer is being written (a client that stops reading). */
export const GATE_HOLD_MAX_MS = 10_000;

/**
 * At most `limit` tasks at once; the others wait in order. A task may keep its slot after it
 * returned, until `heldUntil` settles (at most GATE_HOLD_MAX_MS): a catch-up answer is read, then
 * serialised, compressed and written, and it is those copies, not the rows, that weigh when 50
 * pages catch up at once — so the slot is given back once the answer is written.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly holdMaxMs: number = GATE_HOLD_MAX_MS,
  ) {}

  async run<T>(task: () => Promise<T>, heldUntil?: Promise<unknown>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    let held = false;
    try {
      const result = await task();
      if (heldUntil) {
        held = true;
        let timer: NodeJS.Timeout | undefined;
        void Promise.race([
          heldUntil.catch(() => undefined),
          new Promise((resolve) => {
            timer = setTimeout(resolve, this.holdMaxMs);
          }),
        ]).then(() => {
          clearTimeout(timer);
          this.release();
        });
      }
      return result;
    } finally {
      if (!held) this.release();
    }
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

/** The one gate of this process (the memory budget is per process). */
export const catchUpGate = new ConcurrencyGate(CATCH_UP_CONCURRENCY);
