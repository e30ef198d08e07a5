import { lazy, Suspense } from 'react';
import { PublicFrame } from '@/components/layout/public-frame';
import { FullPageSpinner } from '@/components/ui/spinner';
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
  useRingTabPresence(session.user ? session.token : null);
  if (!session.token || !session.user) {
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
