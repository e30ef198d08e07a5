import { FullPageSpinner } from '@/components/ui/spinner';
import { AdminSessionProvider, useAdminSession } from '@/lib/auth/admin-session';
import { AdminConsole } from './admin-console';
import { AdminLogin } from './admin-login';

/**
 * /admin: the console while an admin is signed in, the login screen otherwise. The admin session
 * lives here, not around every page: visitors of the other areas never download its code.
 */
export function AdminPage() {
  return (
    <AdminSessionProvider>
      <AdminArea />
    </AdminSessionProvider>
  );
}

function AdminArea() {
  const session = useAdminSession();
  if (!session.admin) return <AdminLogin />;
  if (session.loadingPermissions) return <FullPageSpinner />;
  return <AdminConsole />;
}
