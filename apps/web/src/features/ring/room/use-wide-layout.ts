import { useSyncExternalStore } from 'react';

/** The breakpoint (Tailwind's `lg`) above which the room shows the members beside the chat. */
const WIDE_QUERY = '(min-width:1024px)';
/** How long a new width must last before the room changes layout. */
export const LAYOUT_SETTLE_MS = 250;

/** What the store reads of `window.matchMedia(…)`. */
export interface MediaQuerySource {
  readonly matches: boolean;
  addEventListener(type: 'change', listener: () => void): void;
  removeEventListener(type: 'change', listener: () => void): void;
}

/**
 * A media query's answer for useSyncExternalStore that moves only once the window has kept its new
 * size for `settleMs`. Changing layout remounts the conversation (its open dialogs, its draft's
 * focus), so a passing size — a window dragged across the breakpoint and back, a full-page capture
 * that resizes the page for a moment — must not change it.
 */
export function settledMediaQuery(
  open: () => MediaQuerySource,
  settleMs: number,
  timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'> = globalThis,
) {
  let settled: boolean | undefined;
  let subscribers = 0;
  return {
    subscribe(onChange: () => void): () => void {
      const query = open();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const changed = () => {
        timers.clearTimeout(timer);
        timer = timers.setTimeout(() => {
          settled = query.matches;
          onChange();
        }, settleMs);
      };
      subscribers += 1;
      settled ??= query.matches;
      query.addEventListener('change', changed);
      return () => {
        timers.clearTimeout(timer);
        query.removeEventListener('change', changed);
        subscribers -= 1;
        // Nobody follows the window any more: the next reader starts from its size then.
        if (subscribers === 0) settled = undefined;
      };
    },
    getSnapshot(): boolean {
      return settled ?? open().matches;
    },
  };
}

const wideLayout = settledMediaQuery(() => window.matchMedia(WIDE_QUERY), LAYOUT_SETTLE_MS);

/**
 * True on a desktop-wide window: the room keeps its header, chat and members side by side; below
 * it (phones, issue 28) the conversation fills the screen and the members are a tab of their own.
 */
export function useWideLayout(): boolean {
  return useSyncExternalStore(wideLayout.subscribe, wideLayout.getSnapshot, () => true);
}
