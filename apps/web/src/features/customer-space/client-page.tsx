import { AlertTriangle } from 'lucide-react';
import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import { Navigate } from 'react-router';
import { PublicFrame } from '@/components/layout/public-frame';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { FullPageSpinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { CustomerLogin } from './customer-login';
import { useDashboard } from './dashboard-api';

// The dashboard and its tabs are for signed-in customers only: the login screen does not
// download them. Fetched as soon as a session is known, alongside the dashboard data.
const loadDashboard = () => import('./customer-dashboard');
const CustomerDashboard = lazy(() => loadDashboard().then((m) => ({ default: m.CustomerDashboard })));

/** /client: the login screen while signed out, then the access rules of spec 2 §4. */
export function ClientPage() {
  const session = useCustomerSession();
  if (session.loading) return <FullPageSpinner />;
  if (!session.customer) {
    return (
      <PublicFrame>
        <CustomerLogin />
      </PublicFrame>
    );
  }
  if (!session.customer.email_verified) return <Navigate to="/verify-email" replace />;
  return <SubscribedGate />;
}

/** No active subscription: refresh the customer and the dashboard once, then send to /subscribe. */
function SubscribedGate() {
  const session = useCustomerSession();
  const dashboard = useDashboard();
  const [retried, setRetried] = useState(false);
  const retrying = useRef(false);
  const inactive = dashboard.isSuccess && dashboard.data.subscription?.status !== 'active';

  useEffect(() => {
    void loadDashboard().catch(() => undefined);
  }, []);

  useEffect(() => {
    if (!inactive || retried || retrying.current) return;
    retrying.current = true;
    void Promise.all([session.refresh(), dashboard.refetch()]).finally(() => setRetried(true));
  }, [inactive, retried, session, dashboard]);

  if (dashboard.isPending) return <FullPageSpinner />;
  if (dashboard.isError) {
    const error = dashboard.error;
    if (error instanceof ApiError && error.kind === 'data') return <DataErrorScreen />;
    return (
      <PublicFrame>
        <main className="mx-auto max-w-md px-4 py-16">
          <Alert variant="error" title="Erreur lors du chargement des données">
            {error instanceof ApiError && error.kind === 'network'
              ? 'Erreur de connexion au serveur'
              : error.message}
          </Alert>
          <Button className="mt-4" onClick={() => void dashboard.refetch()}>
            Réessayer
          </Button>
        </main>
      </PublicFrame>
    );
  }
  if (inactive) return retried ? <Navigate to="/subscribe" replace /> : <FullPageSpinner />;
  return (
    <Suspense fallback={<FullPageSpinner />}>
      <CustomerDashboard data={dashboard.data} />
    </Suspense>
  );
}

function DataErrorScreen() {
  return (
    <PublicFrame>
      <main className="mx-auto flex max-w-md flex-col items-center gap-4 px-4 py-16 text-center">
        <AlertTriangle className="size-12 text-amber-500" aria-hidden />
        <h1 className="text-2xl font-bold">Erreur de données</h1>
        <p className="text-slate-600">
          Les informations de votre abonnement sont illisibles. Rechargez la page&#8239;; si le problème persiste,
          contactez-nous.
        </p>
        <Button onClick={() => window.location.reload()}>Recharger</Button>
      </main>
    </PublicFrame>
  );
}
