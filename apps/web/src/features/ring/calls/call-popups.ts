import {
  CALL_POPUP_CHECK_MS,
  CALL_POPUP_FEATURES,
  CALL_POPUP_PREFIX,
  callPopupUrl,
  type CallParams,
} from './call-policy';

/** What the room sends when one of its call popups was closed. */
export type PopupClosedAction = (answered: boolean) => void;

interface Watch {
  timer: ReturnType<typeof setInterval>;
  answered: boolean;
  params: CallParams;
  popup: Window;
}

/** The call popups this room opened and still watches, by call id. */
const watched = new Map<string, Watch>();

/** An answered call whose popup is still open: the room offers to go back to it. */
export interface OngoingCall {
  params: CallParams;
  /** Brings the call popup to the front. */
  focus(): void;
}

const listeners = new Set<() => void>();
let ongoing: readonly OngoingCall[] = [];

function changed(): void {
  const next = [...watched.values()]
    .filter((w) => w.answered)
    .map((w) => ({ params: w.params, focus: () => w.popup.focus() }));
  if (next.length === 0 && ongoing.length === 0) return;
  ongoing = next;
  for (const listener of listeners) listener();
}

/** The answered calls whose popups this room watches (useSyncExternalStore). */
export function getOngoingCalls(): readonly OngoingCall[] {
  return ongoing;
}

export function subscribeOngoingCalls(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Opens the call popup (900×700) for `params` — call it from the click handler itself, so popup
 * blockers allow it — and checks every 500 ms whether it was closed (spec 2 §4): then `onClosed`
 * runs once (call_cancel before an answer, call_hangup after), unless the call ended before.
 * Returns false when the browser refused the popup.
 */
export function openCallPopup(
  params: CallParams,
  onClosed: PopupClosedAction,
  self: Window = window,
): boolean {
  const popup = self.open(callPopupUrl(params), CALL_POPUP_PREFIX + params.callId, CALL_POPUP_FEATURES);
  if (!popup) return false;
  forget(params.callId);
  const watch: Watch = {
    answered: false,
    params,
    popup,
    timer: setInterval(() => {
      if (!popup.closed) return;
      forget(params.callId);
      onClosed(watch.answered);
    }, CALL_POPUP_CHECK_MS),
  };
  watched.set(params.callId, watch);
  return true;
}

/** The call was answered (the room heard call_accept): closing the popup now hangs up. */
export function markCallAnswered(callId: string): void {
  const watch = watched.get(callId);
  if (watch && !watch.answered) {
    watch.answered = true;
    changed();
  }
}

/** The popup that a window message came from belongs to this room's call `callId`. */
export function isCallPopup(callId: string, source: unknown): boolean {
  const watch = watched.get(callId);
  return watch !== undefined && source === watch.popup;
}

/** The call is over: its popup closing later needs no message to the server. */
export function markCallOver(callId: string): void {
  forget(callId);
}

/** Whether the room still watches a popup for this call. */
export function isWatchingCall(callId: string): boolean {
  return watched.has(callId);
}

function forget(callId: string): void {
  const watch = watched.get(callId);
  if (!watch) return;
  clearInterval(watch.timer);
  watched.delete(callId);
  if (watch.answered) changed();
}
