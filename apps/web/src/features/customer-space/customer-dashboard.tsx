import { LogOut } from 'lucide-react';
import { Link } from 'react-router';
import { PublicFrame } from '@/components/layout/public-frame';
import { Button } from '@/components/ui/button';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { usePageTitle } from '@/lib/site-settings';

/** The signed-in customer space. */
export function CustomerDashboard() {
  usePageTitle('Espace Client');
  const session = useCustomerSession();
  const customer = session.customer!;
  return (
    <PublicFrame>
      <main className="mx-auto max-w-4xl px-4 py-10">
        <h1 className="text-2xl font-bold">Bienvenue {customer.first_name}</h1>
        <p className="text-slate-600">{customer.email}</p>
        <div className="mt-6 flex gap-2">
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
