/**
 * Streams a decrypted file to the browser's download manager through the service worker
 * public/download-sw.js, registered on first use with a scope that covers only its own download
 * URLs (no page of the app is ever controlled by it). The page hands the worker one chunk at a
 * time over a MessageChannel, when its stream asks for one: memory stays at a chunk or two.
 */

const WORKER_URL = '/download-sw.js';
/** The worker's scope and the prefix of its download URLs (kept in step with download-sw.js). */
export const STREAM_DOWNLOAD_SCOPE = '/__securering/download/';
/** If the download URL is not answered by the worker within this time, the Blob path is used. */
const START_TIMEOUT_MS = 15_000;
/** The page pings the worker while a download runs, so the browser does not stop it as idle. */
const KEEP_ALIVE_MS = 10_000;

let worker: Promise<ServiceWorker> | undefined;

/** Service workers exist here (secure context, not disabled). */
export function canStreamDownloads(): boolean {
  return typeof navigator !== 'undefined' && 'serviceWorker' in navigator && window.isSecureContext;
}

function activated(candidate: ServiceWorker): Promise<ServiceWorker> {
  if (candidate.state === 'activated') return Promise.resolve(candidate);
  return new Promise((resolve, reject) => {
    candidate.addEventListener('statechange', () => {
      if (candidate.state === 'activated') resolve(candidate);
      else if (candidate.state === 'redundant') reject(new Error('download worker redundant'));
    });
  });
}

function downloadWorker(): Promise<ServiceWorker> {
  worker ??= (async () => {
    const registration = await navigator.serviceWorker.register(WORKER_URL, { scope: STREAM_DOWNLOAD_SCOPE });
    const candidate = registration.installing ?? registration.waiting ?? registration.active;
    if (!candidate) throw new Error('no download worker');
    return activated(candidate);
  })().catch((error: unknown) => {
    worker = undefined;
    throw error;
  });
  return worker;
}

type FromWorker = { type: 'ready' } | { type: 'pull' } | { type: 'cancel' };

/**
 * Saves `plain` as a download named by `disposition` (a Content-Disposition value). Resolves once
 * the last chunk is handed over; rejects if the stream fails (the download then fails in the
 * browser too). If the worker never starts the download, `onFallback` gets the stream instead.
 */
export async function streamDownload(
  plain: ReadableStream<Uint8Array>,
  options: { disposition: string; size: number; onFallback(rest: ReadableStream<Uint8Array>): Promise<void> },
): Promise<void> {
  const active = await downloadWorker();
  const id = crypto.randomUUID();
  const channel = new MessageChannel();
  const port = channel.port1;
  const reader = plain.getReader();
  let started = false;
  let frame: HTMLIFrameElement | undefined;
  const keepAlive = window.setInterval(() => active.postMessage({ type: 'keepalive' }), KEEP_ALIVE_MS);

  try {
    await new Promise<void>((resolve, reject) => {
      const startTimer = window.setTimeout(() => {
        if (started) return;
        port.postMessage({ type: 'error' });
        reader.releaseLock();
        options.onFallback(plain).then(resolve, reject);
      }, START_TIMEOUT_MS);

      port.onmessage = async (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.type === 'ready') {
          frame = document.createElement('iframe');
          frame.hidden = true;
          frame.title = 'Téléchargement';
          frame.src = `${STREAM_DOWNLOAD_SCOPE}${id}`;
          document.body.appendChild(frame);
        } else if (message.type === 'pull') {
          started = true;
          window.clearTimeout(startTimer);
          try {
            const read = await reader.read();
            if (read.done) {
              port.postMessage({ type: 'end' });
              resolve();
              return;
            }
            const chunk = read.value;
            const whole = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
            const buffer = (whole ? chunk.buffer : chunk.slice().buffer) as ArrayBuffer;
            port.postMessage({ type: 'chunk', chunk: buffer }, [buffer]);
          } catch (error) {
            port.postMessage({ type: 'error' });
            reject(error);
          }
        } else if (message.type === 'cancel') {
          // Cancelled in the browser's download list.
          void reader.cancel().catch(() => undefined);
          resolve();
        }
      };
      active.postMessage(
        { type: 'securering-download', id, disposition: options.disposition, size: options.size },
        [channel.port2],
      );
    });
  } finally {
    window.clearInterval(keepAlive);
    port.close();
    const shown = frame;
    // The iframe only carried the download's navigation; leave it a moment to finish starting.
    if (shown) window.setTimeout(() => shown.remove(), 5000);
  }
}
