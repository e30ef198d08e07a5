import type { LogCategory, LogLevel, TClientLogRequest } from '@securering/contract';

const ENDPOINT = '/api/utils/log.php';

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
    void fetch(ENDPOINT, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
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
  logToServer('info', 'system', 'Chargement de la page', { url: window.location.pathname });
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
