import { Navigate, Outlet, ScrollRestoration, useLocation, useSearchParams } from 'react-router';
import { BackToTop } from '@/components/layout/back-to-top';
import { CookieBanner } from '@/components/layout/cookie-banner';
import { useApplySiteSettings } from '@/lib/site-settings';
import { MaintenanceGate } from './maintenance-gate';

/** Global behaviours of every page: invite redirect, maintenance gate, colours, back-to-top, cookies. */
export function RootLayout() {
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  useApplySiteSettings();

  const invite = params.get('invite');
  if (invite !== null && pathname !== '/ring-access') {
    return <Navigate to={`/ring-access?invite=${encodeURIComponent(invite)}`} replace />;
  }

  return (
    <MaintenanceGate>
      <Outlet />
      <BackToTop />
      <CookieBanner />
      <ScrollRestoration />
    </MaintenanceGate>
  );
}
