import { lazy, Suspense, useEffect } from 'react';
import { PublicFrame } from '@/components/layout/public-frame';
import { FullPageSpinner } from '@/components/ui/spinner';
import { SESSION_EXPIRED_EVENT, clearSession } from '@/lib/api-client';
import { setRingLoginNotice } from '@/lib/auth/ring-login-notice';
import { onRingLogout } from '@/lib/auth/ring-logout-channel';
import { useRingSession } from '@/lib/auth/ring-session';
import { useRingTabPresence } from '@/lib/auth/ring-tabs';
import { usePageTitle } from '@/lib/site-settings';
import { RingLoginForm } from './ring-login-form';

// The room (its realtime client, the e2ee package and its dialogs) loads only once signed in.
const RingRoom = lazy(() => import('./room/ring-room').then((m) => ({ default: m.RingRoom })));

/** /ring: the room once a Ring session exists, the Ring login otherwise. */
export function RingPage() {
  const session = useRingSession();
  usePageTitle(session.ring ? session.ring.name : 'Accès Ring');
  // The room and its DM and call popups are this browser's Ring tabs.
  useRingTabPresence(session.user && session.ring ? `${session.ring.id}:${session.user.id}` : null);
  // Another window of this browser logged out of the Ring (issue 28): a popup closes, and any
  // window drops its session and, with the room, its keys.
  useEffect(
    () =>
      onRingLogout(() => {
        setRingLoginNotice({ kind: 'logged_out', email: null });
        clearSession('ring');
        window.dispatchEvent(new CustomEvent(SESSION_EXPIRED_EVENT, { detail: 'ring' }));
        // DM and call popups (`/ring?convId=…`, `/ring?voice=1…`), not a room tab.
        const query = new URLSearchParams(window.location.search);
        const popup =
          query.has('convId') ||
          query.get('voice') === '1' ||
          /^securering-(chat|call)-/.test(window.name);
        if (popup) window.close();
      }),
    [],
  );
  if (!session.user) {
    return (
      <PublicFrame>
        <main className="px-4 py-12">
          <RingLoginForm />
        </main>
      </PublicFrame>
    );
  }
  return (
    <Suspense fallback={<FullPageSpinner />}>
      {/* Keyed by member: another login in this tab starts from a locked keyring. */}
      <RingRoom key={`${session.ring?.id ?? ''}:${session.user.id}`} />
    </Suspense>
  );
}
