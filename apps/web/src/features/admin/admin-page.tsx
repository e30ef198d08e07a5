import { FullPageSpinner } from '@/components/ui/spinner';
import { useAdminSession } from '@/lib/auth/admin-session';
import { AdminConsole } from './admin-console';
import { AdminLogin } from './admin-login';

/** /admin: the console while an admin is signed in, the login screen otherwise. */
export function AdminPage() {
  const session = useAdminSession();
  if (!session.token || !session.admin) return <AdminLogin />;
  if (session.loadingPermissions) return <FullPageSpinner />;
  return <AdminConsole />;
}
