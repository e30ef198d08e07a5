import { PublicFrame } from '@/components/layout/public-frame';
import { FullPageSpinner } from '@/components/ui/spinner';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { CustomerDashboard } from './customer-dashboard';
import { CustomerLogin } from './customer-login';

/** /client: the login screen while signed out, the customer space once signed in. */
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
  return <CustomerDashboard />;
}
