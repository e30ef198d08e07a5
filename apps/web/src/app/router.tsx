import { createBrowserRouter } from 'react-router';
import { ErrorScreen } from './error-screen';
import { NotFoundPage } from './not-found-page';
import { PublicLayout } from './public-layout';
import { RootLayout } from './root-layout';

/**
 * Every route of spec 1's table. Each page is its own lazy chunk, so the public site, the customer
 * space, the Ring room and the back office load separately.
 */
export const router = createBrowserRouter([
  {
    Component: RootLayout,
    errorElement: <ErrorScreen />,
    children: [
      {
        Component: PublicLayout,
        children: [
          {
            index: true,
            lazy: () => import('@/features/home/home-page').then((m) => ({ Component: m.HomePage })),
          },
          {
            path: 'contact',
            lazy: () => import('@/features/contact/contact-page').then((m) => ({ Component: m.ContactPage })),
          },
          {
            path: 'terms',
            lazy: () => import('@/features/legal/legal-page').then((m) => ({ Component: m.TermsPage })),
          },
          {
            path: 'privacy',
            lazy: () => import('@/features/legal/legal-page').then((m) => ({ Component: m.PrivacyPage })),
          },
          {
            path: 'legal',
            lazy: () => import('@/features/legal/legal-page').then((m) => ({ Component: m.LegalNoticePage })),
          },
          {
            path: 'register',
            lazy: () =>
              import('@/features/customer-auth/register-page').then((m) => ({ Component: m.RegisterPage })),
          },
          {
            path: 'verify-email',
            lazy: () =>
              import('@/features/customer-auth/verify-email-page').then((m) => ({
                Component: m.VerifyEmailPage,
              })),
          },
          {
            path: 'forgot-password',
            lazy: () =>
              import('@/features/customer-auth/forgot-password-page').then((m) => ({
                Component: m.ForgotPasswordPage,
              })),
          },
          {
            path: 'reset-password',
            lazy: () =>
              import('@/features/customer-auth/reset-password-page').then((m) => ({
                Component: m.ResetPasswordPage,
              })),
          },
          {
            path: 'subscribe',
            lazy: () =>
              import('@/features/subscribe/subscribe-page').then((m) => ({ Component: m.SubscribePage })),
          },
          {
            path: 'payment-success',
            lazy: () =>
              import('@/features/subscribe/payment-result-pages').then((m) => ({
                Component: m.PaymentSuccessPage,
              })),
          },
          {
            path: 'payment-cancelled',
            lazy: () =>
              import('@/features/subscribe/payment-result-pages').then((m) => ({
                Component: m.PaymentCancelledPage,
              })),
          },
          {
            path: 'subscription-success',
            lazy: () =>
              import('@/features/subscribe/payment-result-pages').then((m) => ({
                Component: m.SubscriptionSuccessPage,
              })),
          },
          {
            path: 'test-checkout',
            lazy: () =>
              import('@/features/subscribe/test-checkout-page').then((m) => ({
                Component: m.TestCheckoutPage,
              })),
          },
          {
            path: 'accept-invite',
            lazy: () =>
              import('@/features/ring/accept-invite-page').then((m) => ({
                Component: m.AcceptInvitePage,
              })),
          },
          {
            path: 'ring-access',
            lazy: () =>
              import('@/features/ring/ring-access-page').then((m) => ({
                Component: m.RingAccessPage,
              })),
          },
          { path: '*', Component: NotFoundPage },
        ],
      },
      {
        path: 'client',
        lazy: () =>
          import('@/features/customer-space/client-page').then((m) => ({ Component: m.ClientPage })),
      },
      {
        path: 'ring',
        lazy: () => import('@/features/ring/ring-page').then((m) => ({ Component: m.RingPage })),
      },
      {
        path: 'admin',
        lazy: () => import('@/features/admin/admin-page').then((m) => ({ Component: m.AdminPage })),
      },
    ],
  },
]);
