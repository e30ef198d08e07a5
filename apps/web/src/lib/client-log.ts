import {
  COOKIES,
  CSRF_HEADER,
  type LogCategory,
  type LogLevel,
  type TClientLogRequest,
} from '@securering/contract';
import { getCookie } from './cookies';

const ENDPOINT = '/api/utils/log.php';

/**
 * The CSRF cookie a report from this page repeats, naming the session (HttpOnly cookie) it comes
 * from: the server files a report under its category only when a live session sent it (anonymous
 * reports go to `client`).
 */
export function logSessionCookie(pathname: string): string {
  if (pathname === '/admin' || pathname.startsWith('/admin/')) return COOKIES.adminCsrf;
  if (pathname === '/ring' || pathname.startsWith('/ring/')) return COOKIES.ringCsrf;
  return COOKIES.customerCsrf;
}

/**
 * Fire-and-forget report to the server's system log. Never throws and never awaits: a failing
 * logger must not break the page.
 */
export function logToServer(
  level: LogLevel | 'warn',
  category: LogCategory,
  message: string,
  details?: unknown,
  userId?: string | null,
): void {
  const payload: TClientLogRequest = { level, category, message, details, user_id: userId ?? null };
  try {
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    const csrf = getCookie(logSessionCookie(window.location.pathname));
    if (csrf) headers[CSRF_HEADER] = csrf;
    void fetch(ENDPOINT, {
      method: 'POST',
      headers,
      body,
      keepalive: true,
    }).catch(() => undefined);
  } catch {
    // Unserialisable details: drop the report rather than fail.
  }
}

let installed = false;

/** Page load, global errors and unhandled rejections (spec 1 §7). */
export function installGlobalErrorLogging(): void {
  if (installed) return;
  installed = true;
  // The load report waits until the page has loaded and the browser is idle: it must not compete
  // with what the page needs to show itself.
  const url = window.location.pathname;
  const send = () => logToServer('info', 'system', 'Chargement de la page', { url });
  const reportLoad = () => {
    if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(send, { timeout: 5000 });
    else window.setTimeout(send, 1000);
  };
  if (document.readyState === 'complete') reportLoad();
  else window.addEventListener('load', reportLoad, { once: true });
  window.addEventListener('error', (event) => {
    logToServer('error', 'system', 'Erreur JavaScript', {
      url: window.location.pathname,
      error: event.message,
      source: event.filename,
      line: event.lineno,
    });
  });
  window.addEventListener('unhandledrejection', (event) => {
    const reason = event.reason instanceof Error ? event.reason.message : String(event.reason);
    logToServer('error', 'system', 'Promesse rejetée non gérée', {
      url: window.location.pathname,
      error: reason,
    });
  });
}
