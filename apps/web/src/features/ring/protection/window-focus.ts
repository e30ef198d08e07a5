import { FOCUS_CHECK_MS } from './protection-policy';

/**
 * Focus heartbeat between the windows of the Ring (room, DM popup, call popup; same origin): the
 * window that has the focus says so every second, so a window of the Ring that lost the focus to
 * one of them does not mask its content (issue 28). Carries no content, only "focused or not".
 */
const CHANNEL = 'securering-ring-focus';
const SELF = Math.random().toString(36).slice(2);

interface FocusMessage {
  from: string;
  focused: boolean;
}

/** Announces this window's focus while it lasts (and its loss); returns the stop function. */
export function announceWindowFocus(): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(CHANNEL);
  const post = (focused: boolean) => channel.postMessage({ from: SELF, focused } satisfies FocusMessage);
  const onFocus = () => post(true);
  const onBlur = () => post(false);
  const beat = setInterval(() => document.hasFocus() && post(true), FOCUS_CHECK_MS);
  window.addEventListener('focus', onFocus);
  window.addEventListener('blur', onBlur);
  window.addEventListener('pagehide', onBlur);
  if (document.hasFocus()) post(true);
  return () => {
    clearInterval(beat);
    window.removeEventListener('focus', onFocus);
    window.removeEventListener('blur', onBlur);
    window.removeEventListener('pagehide', onBlur);
    post(false);
    channel.close();
  };
}

/** Calls back with the time another window of the Ring said it has the focus (0: it lost it). */
export function onSiblingFocus(callback: (at: number) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    const data = event.data as Partial<FocusMessage> | null;
    if (data && data.from !== SELF && typeof data.focused === 'boolean')
      callback(data.focused ? Date.now() : 0);
  };
  return () => channel.close();
}
