import { PublicFrame } from '@/components/layout/public-frame';
import { useRingSession } from '@/lib/auth/ring-session';
import { usePageTitle } from '@/lib/site-settings';
import { RingLoginForm } from './ring-login-form';
import { RingRoom } from './ring-room';

/** /ring: the room once a Ring session exists, the Ring login otherwise. */
export function RingPage() {
  const session = useRingSession();
  usePageTitle(session.ring ? session.ring.name : 'Accès Ring');
  if (!session.token || !session.user) {
    return (
      <PublicFrame>
        <main className="px-4 py-12">
          <RingLoginForm />
        </main>
      </PublicFrame>
    );
  }
  return <RingRoom />;
}
