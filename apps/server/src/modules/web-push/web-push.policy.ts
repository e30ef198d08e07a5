import { WEB_PUSH_MESSAGES } from '@securering/contract';

/**
 * The push services browsers subscribe with (host, or a parent domain of it). The server POSTs to a
 * subscription's endpoint, a URL a member's browser sent: only these hosts are accepted, so a
 * member cannot make the server call an address of its choosing (an internal service, a
 * third-party site). Chrome, Edge, Opera, Brave: FCM; Edge on Windows: WNS; Firefox: Mozilla
 * autopush; Safari: Apple.
 */
export const PUSH_SERVICE_HOSTS = [
  'fcm.googleapis.com',
  'android.googleapis.com',
  'updates.push.services.mozilla.com',
  'push.services.mozilla.com',
  'notify.windows.com',
  'push.apple.com',
] as const;

/** Coalescing: at most one push per member and conversation within this time. */
export const PUSH_COALESCE_MS = 30_000;
/** A push service that does not answer within this time is given up (the push is best effort). */
export const PUSH_REQUEST_TIMEOUT_MS = 10_000;
/** Requests to push services in flight at once for one message. */
export const PUSH_CONCURRENCY = 8;
/** How long a push service keeps an undelivered push for an offline device (seconds). */
export const PUSH_TTL_SEC = 24 * 60 * 60;

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Why `endpoint` may not be a push subscription's endpoint, or null when it may: an https URL of a
 * known push service, without credentials or an explicit port other than 443; with
 * WEB_PUSH_ALLOW_HTTP (tests), also http on the loopback interface.
 */
export function endpointRefusal(endpoint: string, options: { allowLocalHttp: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return WEB_PUSH_MESSAGES.invalidEndpoint;
  }
  if (url.username || url.password || url.hash) return WEB_PUSH_MESSAGES.invalidEndpoint;
  const host = url.hostname.toLowerCase();
  if (url.protocol === 'http:') {
    return options.allowLocalHttp && LOCAL_HOSTS.has(host) ? null : WEB_PUSH_MESSAGES.invalidEndpoint;
  }
  if (url.protocol !== 'https:') return WEB_PUSH_MESSAGES.invalidEndpoint;
  if (options.allowLocalHttp && LOCAL_HOSTS.has(host)) return null;
  if (url.port !== '' && url.port !== '443') return WEB_PUSH_MESSAGES.untrustedEndpoint;
  const known = PUSH_SERVICE_HOSTS.some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
  return known ? null : WEB_PUSH_MESSAGES.untrustedEndpoint;
}

/** What a push service's answer means for the subscription: kept, or gone for good (404/410). */
export function outcomeOf(status: number): 'sent' | 'gone' | 'failed' {
  if (status === 404 || status === 410) return 'gone';
  return status >= 200 && status < 300 ? 'sent' : 'failed';
}

/** The endpoint's host, for logs: the full URL is a capability to wake the device, never logged. */
export function endpointHost(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return '?';
  }
}
