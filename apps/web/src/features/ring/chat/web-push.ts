import {
  WEB_PUSH_API_PATHS,
  ZWebPushPublicKeyResponse,
  ZWebPushSubscribeResponse,
  ZWebPushUnsubscribeResponse,
} from '@securering/contract';
import { apiRequest } from '@/lib/api-client';
import { STREAM_DOWNLOAD_SCOPE } from '../files/stream-download';
import { FLAG_PREFIX } from './web-push-flag';

/**
 * Web Push on this device (issue 29), loaded with the notification preferences or, for a member
 * who opted in, when the room opens. The existing service worker (public/download-sw.js, scope of
 * the download URLs only: it controls no page) receives the pushes; the subscription is made with
 * the server's VAPID public key and sent to the server. The Ring's name goes to IndexedDB for the
 * worker, which shows « Nouveau message dans {Ring} » from it: the push itself names nothing.
 */

const WORKER_URL = '/download-sw.js';
const PUSH_DB = 'securering-push';
const PUSH_STORE = 'rings';

export type WebPushSupport = 'supported' | 'unsupported' | 'denied';

export function webPushSupport(): WebPushSupport {
  if (
    typeof window === 'undefined' ||
    !window.isSecureContext ||
    !('serviceWorker' in navigator) ||
    !('PushManager' in window) ||
    typeof Notification === 'undefined'
  )
    return 'unsupported';
  return Notification.permission === 'denied' ? 'denied' : 'supported';
}

async function activeRegistration(): Promise<ServiceWorkerRegistration> {
  const registration = await navigator.serviceWorker.register(WORKER_URL, { scope: STREAM_DOWNLOAD_SCOPE });
  const worker = registration.installing ?? registration.waiting;
  if (worker && !registration.active) {
    await new Promise<void>((resolve, reject) => {
      worker.addEventListener('statechange', () => {
        if (worker.state === 'activated') resolve();
        else if (worker.state === 'redundant') reject(new Error('service worker redundant'));
      });
    });
  }
  return registration;
}

function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const padded = value
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(value.length / 4) * 4, '=');
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function sameKey(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.byteLength) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
}

/** Stores (or with `null` removes) the Ring's name for the worker's notifications. */
function storeRingName(ringId: string, name: string | null): Promise<void> {
  return new Promise((resolve) => {
    let request: IDBOpenDBRequest;
    try {
      request = indexedDB.open(PUSH_DB, 1);
    } catch {
      resolve();
      return;
    }
    request.onupgradeneeded = () => request.result.createObjectStore(PUSH_STORE);
    request.onerror = () => resolve();
    request.onsuccess = () => {
      const db = request.result;
      try {
        const tx = db.transaction(PUSH_STORE, 'readwrite');
        if (name === null) tx.objectStore(PUSH_STORE).delete(ringId);
        else tx.objectStore(PUSH_STORE).put(name, ringId);
        tx.oncomplete =
          tx.onerror =
          tx.onabort =
            () => {
              db.close();
              resolve();
            };
      } catch {
        db.close();
        resolve();
      }
    };
  });
}

/** The browser's subscription under the server's current key (a new one if the key changed). */
async function currentSubscription(): Promise<PushSubscription> {
  const { publicKey } = await apiRequest(WEB_PUSH_API_PATHS.publicKey, {
    auth: 'ring',
    schema: ZWebPushPublicKeyResponse,
  });
  const key = base64UrlToBytes(publicKey);
  const registration = await activeRegistration();
  const existing = await registration.pushManager.getSubscription();
  if (existing && sameKey(existing.options.applicationServerKey, key)) return existing;
  await existing?.unsubscribe();
  return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
}

async function sendSubscription(subscription: PushSubscription): Promise<void> {
  const json = subscription.toJSON();
  await apiRequest(WEB_PUSH_API_PATHS.subscribe, {
    method: 'POST',
    auth: 'ring',
    body: { endpoint: json.endpoint, keys: json.keys },
    schema: ZWebPushSubscribeResponse,
  });
}

/**
 * Opts this member in on this device: asks for the notification permission (call it from the
 * click), subscribes, tells the server. Throws with a French message when it cannot.
 */
export async function enableWebPush(
  member: { id: string },
  ring: { id: string; name: string },
): Promise<void> {
  if (webPushSupport() === 'unsupported')
    throw new Error('Ce navigateur ne permet pas les notifications quand l’onglet est fermé.');
  const permission = await Notification.requestPermission();
  if (permission !== 'granted')
    throw new Error('Autorisez les notifications de ce site dans votre navigateur, puis réessayez.');
  let subscription: PushSubscription;
  try {
    subscription = await currentSubscription();
  } catch (error) {
    // The browser's push service refused or cannot be reached (its own message is in English).
    if (error instanceof DOMException)
      throw new Error(
        'Le service de notification de votre navigateur est indisponible. Réessayez plus tard.',
      );
    throw error;
  }
  await sendSubscription(subscription);
  await storeRingName(ring.id, ring.name);
  setWebPushWanted(member.id, true);
}

/**
 * Opts this member out on this device (the switch, and logout): the server forgets the
 * subscription for it; the browser's subscription goes too unless another member of this browser
 * still uses it.
 */
export async function disableWebPush(
  member: { id: string },
  ringId: string,
  options: { callServer: boolean },
): Promise<void> {
  setWebPushWanted(member.id, false);
  await storeRingName(ringId, null);
  if (webPushSupport() === 'unsupported') return;
  const registration = await navigator.serviceWorker.getRegistration(STREAM_DOWNLOAD_SCOPE);
  const subscription = await registration?.pushManager.getSubscription();
  if (!subscription) return;
  if (options.callServer)
    await apiRequest(WEB_PUSH_API_PATHS.unsubscribe, {
      method: 'POST',
      auth: 'ring',
      body: { endpoint: subscription.endpoint },
      schema: ZWebPushUnsubscribeResponse,
    }).catch(() => undefined);
  if (!otherWebPushMembers(member.id)) await subscription.unsubscribe().catch(() => false);
}

/**
 * The room opened for a member who opted in: the subscription is renewed if the browser or the
 * server's key changed, sent again (the server may have lost it: a restore), and the Ring's name
 * refreshed. A permission withdrawn since turns the opt-in off.
 */
export async function syncWebPush(member: { id: string }, ring: { id: string; name: string }): Promise<void> {
  if (webPushSupport() !== 'supported' || Notification.permission !== 'granted') {
    setWebPushWanted(member.id, false);
    return;
  }
  await sendSubscription(await currentSubscription());
  await storeRingName(ring.id, ring.name);
}

export function setWebPushWanted(memberId: string, wanted: boolean): void {
  try {
    if (wanted) localStorage.setItem(FLAG_PREFIX + memberId, '1');
    else localStorage.removeItem(FLAG_PREFIX + memberId);
  } catch {
    // Storage disabled: the room will not refresh the subscription when it opens.
  }
}

/** Whether another member of this browser still wants pushes (they share its one subscription). */
export function otherWebPushMembers(memberId: string): boolean {
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key?.startsWith(FLAG_PREFIX) && key !== FLAG_PREFIX + memberId) return true;
    }
  } catch {
    // Storage disabled.
  }
  return false;
}
