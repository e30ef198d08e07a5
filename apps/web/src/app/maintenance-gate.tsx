import { Wrench } from 'lucide-react';
import type { ReactNode } from 'react';
import { useLocation } from 'react-router';
import { FullPageSpinner } from '@/components/ui/spinner';
import { hasSession } from '@/lib/api-client';
import { useGeneralSettings, useSettings } from '@/lib/site-settings';

/**
 * While maintenance_mode is '1', every page but /admin shows the maintenance page, unless an
 * administrator is signed in. A spinner shows while the flag is being read.
 */
export function MaintenanceGate({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const exempt = pathname === '/admin' || pathname.startsWith('/admin/') || hasSession('admin');
  const maintenance = useSettings('maintenance');
  if (exempt) return <>{children}</>;
  if (maintenance.isPending) return <FullPageSpinner />;
  if (maintenance.data?.maintenance_mode === '1') return <MaintenancePage />;
  return <>{children}</>;
}

function MaintenancePage() {
  const general = useGeneralSettings();
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 bg-slate-50 p-8 text-center">
      <Wrench className="size-12 text-primary" aria-hidden />
      <h1 className="text-3xl font-bold">Site en maintenance</h1>
      <p className="max-w-md text-slate-600">
        {general.site_name || 'SecureRing'} est momentanément indisponible pour maintenance. Merci de revenir
        dans quelques instants.
      </p>
    </main>
  );
}
