import { useSearchParams } from 'react-router';
import { usePageTitle } from '@/lib/site-settings';
import { AcceptInviteForm } from './accept-invite-form';

/** /accept-invite: the acceptance form, code taken from ?invite= (or ?code=). */
export function AcceptInvitePage() {
  usePageTitle('Rejoindre un Ring');
  const [params] = useSearchParams();
  return (
    <main className="px-4 py-12">
      <AcceptInviteForm initialCode={params.get('invite') ?? params.get('code') ?? ''} />
    </main>
  );
}
