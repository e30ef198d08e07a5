/**
 * Catch-up is paged and bounded (issue 26): one reconnecting page gets at most
 * CATCH_UP_MAX_BYTES of envelopes per answer (join_ring's `missed`, or a get.php page after
 * `since`; the database read itself is sized to it: fitCatchUp), the rest with `hasMore` (the
 * page asks get.php for the next page when it has shown these), and at most CATCH_UP_CONCURRENCY such reads run at once in one process, the others
 * waiting their turn. So 50 pages catching up at once hold at most
 * CATCH_UP_CONCURRENCY × CATCH_UP_MAX_BYTES of message rows at a time, however far behind they are.
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

/** At most `limit` tasks at once; the others wait in order. */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** The one gate of this process (the memory budget is per process). */
export const catchUpGate = new ConcurrencyGate(CATCH_UP_CONCURRENCY);
