import { IDLE_CATCH_UP_MS } from '@securering/contract';

/** The longest a `catch_up` may make a page wait before it checks (a bad `withinMs` changes nothing more). */
export const MAX_CATCH_UP_WAIT_MS = 10_000;

/**
 * When a page checks its sequence numbers after the server's `catch_up` asks it to within
 * `withinMs`: a random moment in [0, withinMs), so that the pages of an instance do not all ask at
 * once; `withinMs` is bounded to [0, MAX_CATCH_UP_WAIT_MS]. Pure (`random` in [0, 1)).
 */
export function catchUpDelayMs(withinMs: number, random: number): number {
  const within = Number.isFinite(withinMs) ? withinMs : 0;
  return random * Math.min(Math.max(0, within), MAX_CATCH_UP_WAIT_MS);
}

/** What the checks of a Ring connection need from it. */
export interface CatchUpCheckHost {
  /** Checks the sequence numbers held (join_ring again: its answer carries what was missed). */
  check(): void;
  /** Whether checking makes sense now (connected and not closed). */
  active(): boolean;
  /** Math.random by default. */
  random?: () => number;
}

/**
 * The sequence-number checks of a Ring connection (issue 26): after the server's `catch_up` (its
 * link to the other instances came back) at a random moment within its `withinMs`
 * (catchUpDelayMs), and after IDLE_CATCH_UP_MS with nothing received, again every IDLE_CATCH_UP_MS
 * while nothing comes, so that a quiet Ring never stays behind. One check however many asks come
 * while one is pending; none while the connection is not active.
 */
export function catchUpChecks(host: CatchUpCheckHost) {
  const random = host.random ?? Math.random;
  let checkTimer: ReturnType<typeof setTimeout> | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const within = (withinMs: number) => {
    if (checkTimer !== undefined) return;
    checkTimer = setTimeout(
      () => {
        checkTimer = undefined;
        if (host.active()) host.check();
      },
      catchUpDelayMs(withinMs, random()),
    );
  };
  /** Something was received (or the Ring joined): the idle check waits IDLE_CATCH_UP_MS from now. */
  const activity = () => {
    clearTimeout(idleTimer);
    if (!host.active()) return;
    idleTimer = setTimeout(() => {
      within(0);
      activity();
    }, IDLE_CATCH_UP_MS);
  };
  const stop = () => {
    clearTimeout(checkTimer);
    checkTimer = undefined;
    clearTimeout(idleTimer);
    idleTimer = undefined;
  };
  return { within, activity, stop };
}
