import { Lock } from 'lucide-react';
import { Suspense, lazy } from 'react';
import { Link } from 'react-router';
import { PageShell } from '@/components/layout/page-shell';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { FullPageSpinner } from '@/components/ui/spinner';
import { useCustomerSession } from '@/lib/auth/customer-session';

// The plan choice and checkout are for signed-in customers: visitors do not download them.
const SubscribeFlow = lazy(() => import('./subscribe-flow').then((m) => ({ default: m.SubscribeFlow })));

/** /subscribe requires a customer login (spec 1 §2). */
export function SubscribePage() {
  const session = useCustomerSession();
  if (session.loading) return <FullPageSpinner />;
  if (!session.customer) {
    return (
      <PageShell title="Abonnement" heading="Authentification requise" width="sm">
        <Card>
          <CardContent className="flex flex-col items-center gap-4 pt-6 text-center">
            <Lock className="size-10 text-primary" aria-hidden />
            <p className="text-slate-600">
              Connectez-vous à votre espace client pour choisir votre abonnement.
            </p>
            <Button asChild>
              <Link to={`/client?redirect=${encodeURIComponent('/subscribe' + window.location.search)}`}>
                Se connecter
              </Link>
            </Button>
          </CardContent>
        </Card>
      </PageShell>
    );
  }
  return (
    <Suspense fallback={<FullPageSpinner />}>
      <SubscribeFlow />
    </Suspense>
  );
}
