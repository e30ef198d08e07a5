import { Route, Routes } from 'react-router';
import { lazyPage, type LazyPage } from './lazy-page';
import { NotFoundPage } from './not-found-page';
import { PublicLayout } from './public-layout';
import { RootLayout } from './root-layout';
import { RouteErrorBoundary } from './route-error-boundary';

const legal = () => import('@/features/legal/legal-page');
const paymentResults = () => import('@/features/subscribe/payment-result-pages');

/** Pages inside the public site's header and footer (path relative to the root). */
const PUBLIC_PAGES: ReadonlyArray<{ path: string; page: LazyPage }> = [
  {
    path: '',
    page: lazyPage(
      () => import('@/features/home/home-page'),
      (m) => m.HomePage,
    ),
  },
  {
    path: 'contact',
    page: lazyPage(
      () => import('@/features/contact/contact-page'),
      (m) => m.ContactPage,
    ),
  },
  { path: 'terms', page: lazyPage(legal, (m) => m.TermsPage) },
  { path: 'privacy', page: lazyPage(legal, (m) => m.PrivacyPage) },
  { path: 'legal', page: lazyPage(legal, (m) => m.LegalNoticePage) },
  {
    path: 'register',
    page: lazyPage(
      () => import('@/features/customer-auth/register-page'),
      (m) => m.RegisterPage,
    ),
  },
  {
    path: 'verify-email',
    page: lazyPage(
      () => import('@/features/customer-auth/verify-email-page'),
      (m) => m.VerifyEmailPage,
    ),
  },
  {
    path: 'forgot-password',
    page: lazyPage(
      () => import('@/features/customer-auth/forgot-password-page'),
      (m) => m.ForgotPasswordPage,
    ),
  },
  {
    path: 'reset-password',
    page: lazyPage(
      () => import('@/features/customer-auth/reset-password-page'),
      (m) => m.ResetPasswordPage,
    ),
  },
  {
    path: 'subscribe',
    page: lazyPage(
      () => import('@/features/subscribe/subscribe-page'),
      (m) => m.SubscribePage,
    ),
  },
  { path: 'payment-success', page: lazyPage(paymentResults, (m) => m.PaymentSuccessPage) },
  { path: 'payment-cancelled', page: lazyPage(paymentResults, (m) => m.PaymentCancelledPage) },
  { path: 'subscription-success', page: lazyPage(paymentResults, (m) => m.SubscriptionSuccessPage) },
  {
    path: 'test-checkout',
    page: lazyPage(
      () => import('@/features/subscribe/test-checkout-page'),
      (m) => m.TestCheckoutPage,
    ),
  },
  {
    path: 'accept-invite',
    page: lazyPage(
      () => import('@/features/ring/accept-invite-page'),
      (m) => m.AcceptInvitePage,
    ),
  },
  {
    path: 'ring-access',
    page: lazyPage(
      () => import('@/features/ring/ring-access-page'),
      (m) => m.RingAccessPage,
    ),
  },
];

/** Full-screen areas with their own frame: customer space, Ring room, back office. */
const AREA_PAGES: ReadonlyArray<{ path: string; page: LazyPage }> = [
  {
    path: 'client',
    page: lazyPage(
      () => import('@/features/customer-space/client-page'),
      (m) => m.ClientPage,
    ),
  },
  {
    path: 'ring',
    page: lazyPage(
      () => import('@/features/ring/ring-page'),
      (m) => m.RingPage,
    ),
  },
  {
    path: 'admin',
    page: lazyPage(
      () => import('@/features/admin/admin-page'),
      (m) => m.AdminPage,
    ),
  },
];

/** Fetches the page of `pathname` (nothing for an unknown path); never fails. */
export function preloadRoute(pathname: string): Promise<void> {
  let end = pathname.length;
  while (end > 1 && pathname.charCodeAt(end - 1) === 47) end--;
  const path = pathname.slice(1, end);
  const match = [...PUBLIC_PAGES, ...AREA_PAGES].find((route) => route.path === path);
  return match ? match.page.preload().catch(() => undefined) : Promise.resolve();
}

/**
 * Every route of spec 1's table. Each page is its own chunk, so the public site, the customer
 * space, the Ring room and the back office load separately.
 */
export function AppRoutes() {
  return (
    <RouteErrorBoundary>
      <Routes>
        <Route element={<RootLayout />}>
          <Route element={<PublicLayout />}>
            {PUBLIC_PAGES.map(({ path, page: Page }) =>
              path === '' ? (
                <Route key="index" index element={<Page />} />
              ) : (
                <Route key={path} path={path} element={<Page />} />
              ),
            )}
            <Route path="*" element={<NotFoundPage />} />
          </Route>
          {AREA_PAGES.map(({ path, page: Page }) => (
            <Route key={path} path={path} element={<Page />} />
          ))}
        </Route>
      </Routes>
    </RouteErrorBoundary>
  );
}
