/* global self, indexedDB */
// SecureRing download worker (issue 12): streams a file the page decrypts to the browser's
// download manager, so a large file is never held whole in memory. Registered by
// apps/web/src/features/ring/files/stream-download.ts with the scope /__securering/download/ only:
// it answers nothing but the download URLs a page of this origin announced to it, each once.
// It also receives Web Push notices (issue 29, at the end of this file): pushes reach a worker
// whatever its scope, so no page needs to be controlled for them.
//
// Protocol: the page posts { type: 'securering-download', id, disposition, size } with a
// MessagePort; the worker answers 'ready' on the port, the page opens /__securering/download/<id>
// in a hidden frame, and the worker's stream asks the page for each chunk ('pull'), getting
// { type: 'chunk', chunk }, then { type: 'end' } or { type: 'error' }.

const PREFIX = '/__securering/download/';
/** An announced download not opened within this time is forgotten. */
const PENDING_MS = 60_000;
const pending = new Map();

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('message', (event) => {
  const data = event.data;
  // 'keepalive' messages only reset the browser's idle timer.
  if (!data || data.type !== 'securering-download') return;
  const port = event.ports && event.ports[0];
  if (!port || typeof data.id !== 'string' || typeof data.disposition !== 'string') return;
  const timer = setTimeout(() => pending.delete(data.id), PENDING_MS);
  pending.set(data.id, { port, disposition: data.disposition, size: data.size, timer });
  port.postMessage({ type: 'ready' });
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(PREFIX)) return;
  const id = url.pathname.slice(PREFIX.length);
  const entry = pending.get(id);
  if (!entry) {
    event.respondWith(
      new Response('Téléchargement introuvable ou déjà commencé.', {
        status: 404,
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      }),
    );
    return;
  }
  pending.delete(id);
  clearTimeout(entry.timer);
  const port = entry.port;
  let settle = null;
  port.onmessage = (message) => {
    const resolve = settle;
    settle = null;
    if (resolve) resolve(message.data);
  };
  const stream = new ReadableStream(
    {
      async pull(controller) {
        const answer = await new Promise((resolve) => {
          settle = resolve;
          port.postMessage({ type: 'pull' });
        });
        if (answer && answer.type === 'chunk') controller.enqueue(new Uint8Array(answer.chunk));
        else if (answer && answer.type === 'end') {
          controller.close();
          port.close();
        } else {
          controller.error(new Error('download failed'));
          port.close();
        }
      },
      cancel() {
        port.postMessage({ type: 'cancel' });
        port.close();
      },
    },
    { highWaterMark: 1 },
  );
  const headers = new Headers({
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': entry.disposition,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  if (Number.isSafeInteger(entry.size) && entry.size >= 0) headers.set('Content-Length', String(entry.size));
  event.respondWith(new Response(stream, { headers }));
});

// Web Push (issue 29): the server asks the push service to wake this browser when a message is
// stored for one of the member's conversations while no tab of the Ring is connected. The payload,
// encrypted to this browser, says only { t: 'msg', r: <Ring id> }: no sender, no text. The
// notification names the Ring if the room stored its name here (IndexedDB 'securering-push',
// written by apps/web/src/features/ring/chat/web-push.ts), or stays generic.
const PUSH_DB = 'securering-push';
const PUSH_STORE = 'rings';
const RING_PATH = '/ring';

function ringNameOf(ringId) {
  return new Promise((resolve) => {
    let request;
    try {
      request = indexedDB.open(PUSH_DB, 1);
    } catch {
      resolve(null);
      return;
    }
    request.onupgradeneeded = () => request.result.createObjectStore(PUSH_STORE);
    request.onerror = () => resolve(null);
    request.onsuccess = () => {
      const db = request.result;
      try {
        const get = db.transaction(PUSH_STORE, 'readonly').objectStore(PUSH_STORE).get(ringId);
        get.onsuccess = () => {
          db.close();
          resolve(typeof get.result === 'string' ? get.result : null);
        };
        get.onerror = () => {
          db.close();
          resolve(null);
        };
      } catch {
        db.close();
        resolve(null);
      }
    };
  });
}

self.addEventListener('push', (event) => {
  let ringId = null;
  try {
    const data = event.data ? event.data.json() : null;
    if (data && data.t === 'msg' && typeof data.r === 'string' && data.r.length <= 64) ringId = data.r;
  } catch {
    // Not ours or unreadable: the generic notice.
  }
  event.waitUntil(
    (ringId ? ringNameOf(ringId) : Promise.resolve(null)).then((name) =>
      self.registration.showNotification(
        name ? `Nouveau message dans ${name}` : 'Nouveau message sur SecureRing',
        {
          body: 'Ouvrez le Ring pour le lire.',
          tag: ringId ? `securering-message-${ringId}` : 'securering-message',
          icon: '/favicon.svg',
          data: { ringId },
        },
      ),
    ),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const room = windows.find((client) => new URL(client.url).pathname === RING_PATH);
      if (room) return room.focus();
      return self.clients.openWindow(RING_PATH);
    }),
  );
});
