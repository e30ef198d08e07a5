import { Suspense, lazy, useEffect, useState } from 'react';
import { Navigate, Outlet, useLocation, useSearchParams } from 'react-router';
import { BACK_TO_TOP_THRESHOLD_PX } from '@securering/contract';
import { CookieBanner } from '@/components/layout/cookie-banner';
import { SERVICE_UNAVAILABLE_EVENT } from '@/lib/service-retry';
import { FullPageSpinner } from '@/components/ui/spinner';
import { useApplySiteSettings } from '@/lib/site-settings';
import { useRouteCodeLoading } from './lazy-page';
import { MaintenanceGate } from './maintenance-gate';
import { ScrollRestoration } from './scroll-restoration';

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
      <RouteLoadingBar />
      <ServiceStatus />
      <Suspense fallback={<FullPageSpinner />}>
        <Outlet />
      </Suspense>
      <BackToTopOnceScrolled />
      <CookieBanner />
      <ScrollRestoration />
    </MaintenanceGate>
  );
}

const ServiceStatusBanner = lazy(() =>
  import('@/components/layout/service-status-banner').then((m) => ({ default: m.ServiceStatusBanner })),
);

/**
 * The notice of a dependency outage (issue 26), loaded with the first 503 the API client retries:
 * pages that never meet one do not download it. The banner, once loaded, listens for itself.
 */
function ServiceStatus() {
  const [firstRetryInMs, setFirstRetryInMs] = useState<number | null>(null);
  useEffect(() => {
    const onUnavailable = (event: Event) => {
      setFirstRetryInMs((event as CustomEvent<{ retryInMs?: number }>).detail?.retryInMs ?? 0);
      window.removeEventListener(SERVICE_UNAVAILABLE_EVENT, onUnavailable);
    };
    window.addEventListener(SERVICE_UNAVAILABLE_EVENT, onUnavailable);
    return () => window.removeEventListener(SERVICE_UNAVAILABLE_EVENT, onUnavailable);
  }, []);
  if (firstRetryInMs === null) return null;
  return (
    <Suspense fallback={null}>
      <ServiceStatusBanner firstRetryInMs={firstRetryInMs} />
    </Suspense>
  );
}

const BackToTop = lazy(() =>
  import('@/components/layout/back-to-top').then((m) => ({ default: m.BackToTop })),
);

/**
 * The back-to-top button (spec 1 §2) is loaded the first time the page scrolls past its
 * threshold: pages read without scrolling never download it. Once loaded it tracks the scroll
 * itself.
 */
function BackToTopOnceScrolled() {
  const [scrolled, setScrolled] = useState(false);
  useEffect(() => {
    if (scrolled) return;
    const check = () => {
      if (window.scrollY > BACK_TO_TOP_THRESHOLD_PX) setScrolled(true);
    };
    check();
    window.addEventListener('scroll', check, { passive: true });
    return () => window.removeEventListener('scroll', check);
  }, [scrolled]);
  if (!scrolled) return null;
  return (
    <Suspense fallback={null}>
      <BackToTop />
    </Suspense>
  );
}

/** A thin bar at the top while the next page's code downloads (the current page stays meanwhile). */
function RouteLoadingBar() {
  const loading = useRouteCodeLoading();
  if (!loading) return null;
  return (
    <div role="status" className="fixed inset-x-0 top-0 z-[60] h-1 overflow-hidden bg-primary/20">
      <span className="sr-only">Chargement de la page…</span>
      <div className="route-loading-bar h-full w-1/3 bg-primary" aria-hidden />
    </div>
  );
}
