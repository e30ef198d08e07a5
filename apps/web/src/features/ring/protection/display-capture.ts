/**
 * The one recording signal a web page can really observe: a screen capture started through
 * `navigator.mediaDevices.getDisplayMedia` by this page itself (a script or an extension running in
 * it). Recorders outside the browser, the system screenshot tools and other tabs are invisible to a
 * page — the protection's text says so.
 */

let active = 0;
let patched = false;
const listeners = new Set<() => void>();

function changed(): void {
  for (const listener of listeners) listener();
}

/** Wraps getDisplayMedia once so captures started from this page are counted until they end. */
function patch(): void {
  const devices = typeof navigator === 'undefined' ? undefined : navigator.mediaDevices;
  if (patched || !devices || typeof devices.getDisplayMedia !== 'function') return;
  patched = true;
  const original = devices.getDisplayMedia.bind(devices);
  devices.getDisplayMedia = async (options?: DisplayMediaStreamOptions) => {
    const stream = await original(options);
    active += 1;
    changed();
    let live = stream.getTracks().length;
    const ended = () => {
      live -= 1;
      if (live === 0) {
        active = Math.max(0, active - 1);
        changed();
      }
    };
    for (const track of stream.getTracks()) track.addEventListener('ended', ended, { once: true });
    if (live === 0) ended();
    return stream;
  };
}

/** How many screen captures started by this page are running. */
export function activeDisplayCaptures(): number {
  return active;
}

/** Starts watching (idempotent) and calls back when the count changes; returns the unsubscribe. */
export function watchDisplayCapture(listener: () => void): () => void {
  patch();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The page's JavaScript heap in bytes where the browser tells it (Chromium), else undefined. */
export function usedHeapBytes(): number | undefined {
  const memory = (performance as Performance & { memory?: { usedJSHeapSize?: number } }).memory;
  return typeof memory?.usedJSHeapSize === 'number' ? memory.usedJSHeapSize : undefined;
}
