import { ZDashboardDataResponse, formatAmount } from '@securering/contract';
import { useQuery } from '@tanstack/react-query';
import { LogOut } from 'lucide-react';
import { Link } from 'react-router';
import { PublicFrame } from '@/components/layout/public-frame';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { apiRequest } from '@/lib/api-client';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { formatDateLong } from '@/lib/dates';
import { usePageTitle } from '@/lib/site-settings';

/** The signed-in customer space. */
export function CustomerDashboard() {
  usePageTitle('Espace Client');
  const session = useCustomerSession();
  const customer = session.customer!;
  const dashboard = useQuery({
    queryKey: ['customer', 'dashboard'],
    queryFn: ({ signal }) =>
      apiRequest('/api/customer/dashboard-data.php', {
        auth: 'customer',
        schema: ZDashboardDataResponse,
        signal,
      }),
  });
  const subscription = dashboard.data?.data.subscription;
  return (
    <PublicFrame>
      <main className="mx-auto max-w-4xl space-y-6 px-4 py-10">
        <div>
          <h1 className="text-2xl font-bold">Bienvenue {customer.first_name}</h1>
          <p className="text-slate-600">{customer.email}</p>
        </div>
        <Card>
          <CardHeader>
            <CardTitle>Abonnement</CardTitle>
          </CardHeader>
          <CardContent>
            {dashboard.isPending ? <Spinner /> : null}
            {subscription ? (
              <div className="space-y-1">
                <p className="text-lg font-semibold">
                  {subscription.plan}{' '}
                  <Badge variant={subscription.status === 'active' ? 'success' : 'neutral'}>
                    {subscription.status === 'active' ? 'Actif' : 'Inactif'}
                  </Badge>
                </p>
                <p className="text-sm text-slate-600">
                  {formatAmount(subscription.price)} €/mois · jusqu’au{' '}
                  {formatDateLong(subscription.expires_at)}
                </p>
              </div>
            ) : dashboard.isSuccess ? (
              <p className="text-slate-600">Aucun abonnement.</p>
            ) : null}
          </CardContent>
        </Card>
        <div className="flex gap-2">
          <Button asChild>
            <Link to="/subscribe">Choisir un abonnement</Link>
          </Button>
          <Button variant="outline" onClick={() => void session.logout()}>
            <LogOut aria-hidden /> Déconnexion
          </Button>
        </div>
      </main>
    </PublicFrame>
  );
}
