import { MESSAGES } from '@securering/contract';
import { useEffect, useState } from 'react';
import { SERVICE_RESTORED_EVENT, SERVICE_UNAVAILABLE_EVENT } from '@/lib/service-retry';

/** How long the notice stays after the last retry was announced, when no answer came to end it. */
const NOTICE_LINGER_MS = 10_000;

/**
 * Says what happens while the server answers 503 (a dependency down, issue 26): « Service
 * momentanément indisponible, nouvel essai dans quelques secondes » while the API client retries,
 * gone once a retry is answered.
 */
export function ServiceStatusBanner({ firstRetryInMs }: { firstRetryInMs: number }) {
  // Loaded by the first retry announced (root layout): shown from the start for that one.
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(
      () => setVisible(false),
      firstRetryInMs + NOTICE_LINGER_MS,
    );
    const onUnavailable = (event: Event) => {
      const retryInMs = (event as CustomEvent<{ retryInMs?: number }>).detail?.retryInMs ?? 0;
      setVisible(true);
      clearTimeout(timer);
      timer = setTimeout(() => setVisible(false), retryInMs + NOTICE_LINGER_MS);
    };
    const onRestored = () => {
      clearTimeout(timer);
      setVisible(false);
    };
    window.addEventListener(SERVICE_UNAVAILABLE_EVENT, onUnavailable);
    window.addEventListener(SERVICE_RESTORED_EVENT, onRestored);
    return () => {
      clearTimeout(timer);
      window.removeEventListener(SERVICE_UNAVAILABLE_EVENT, onUnavailable);
      window.removeEventListener(SERVICE_RESTORED_EVENT, onRestored);
    };
  }, [firstRetryInMs]);
  if (!visible) return null;
  return (
    <div
      role="status"
      data-testid="service-status-banner"
      className="fixed inset-x-0 top-0 z-[70] bg-amber-100 px-4 py-2 text-center text-sm font-medium text-amber-900 shadow"
    >
      {MESSAGES.serviceUnavailable}
    </div>
  );
}
