import { useSyncExternalStore } from 'react';

/** The breakpoint (Tailwind's `lg`) above which the room shows the members beside the chat. */
const WIDE_QUERY = '(min-width:1024px)';

function subscribe(onChange: () => void) {
  const query = window.matchMedia(WIDE_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/**
 * True on a desktop-wide window: the room keeps its header, chat and members side by side; below
 * it (phones, issue 28) the conversation fills the screen and the members are a tab of their own.
 */
export function useWideLayout(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(WIDE_QUERY).matches,
    () => true,
  );
}
