/**
 * « Déconnexion » reaches every window of the Ring in this browser (issue 28): the room that logs
 * out tells the others on a BroadcastChannel; DM and call popups close (their keys, held in their
 * memory only, go with them) and other room tabs drop their session and keys.
 */
const CHANNEL = 'securering-ring-logout';
/**
 * This window's id: a BroadcastChannel delivers to every other channel object of the same name,
 * this window's own listener included, which must not act on the logout it announced itself.
 */
const WINDOW_ID =
  typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : String(Math.random());

interface RingLoggedOut {
  type: 'ring_logged_out';
  from: string;
}

export function announceRingLogout(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage({ type: 'ring_logged_out', from: WINDOW_ID } satisfies RingLoggedOut);
  channel.close();
}

/** Calls back when another window of this browser logged out of the Ring; returns the unsubscribe. */
export function onRingLogout(callback: () => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    const data = event.data as Partial<RingLoggedOut> | null;
    if (data?.type === 'ring_logged_out' && data.from !== WINDOW_ID) callback();
  };
  return () => channel.close();
}
