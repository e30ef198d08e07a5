import { Link, useSearchParams } from 'react-router';
import { usePageTitle } from '@/lib/site-settings';
import { AcceptInviteForm } from './accept-invite-form';
import { RingLoginForm } from './ring-login-form';

/** /ring-access: invite acceptance when an invite is given, the Ring login otherwise. */
export function RingAccessPage() {
  const [params] = useSearchParams();
  const invite = params.get('invite');
  usePageTitle(invite ? 'Rejoindre un Ring' : 'Accès Ring');
  return (
    <main className="space-y-6 px-4 py-12">
      {invite !== null ? <AcceptInviteForm initialCode={invite} /> : <RingLoginForm />}
      <p className="text-center text-sm text-slate-600">
        {invite !== null ? (
          <>
            Déjà membre&#8239;?{' '}
            <Link to="/ring-access" className="text-primary underline">
              Se connecter
            </Link>
          </>
        ) : (
          <>
            Vous avez reçu un code&#8239;?{' '}
            <Link to="/accept-invite" className="text-primary underline">
              Rejoindre un Ring
            </Link>
          </>
        )}
      </p>
    </main>
  );
}
