/** The SPA's route table (spec 1 §2). The server answers 404 for any other non-API path. */
export const SPA_ROUTES = [
  '/',
  '/admin',
  '/client',
  '/ring',
  '/accept-invite',
  '/ring-access',
  '/contact',
  '/terms',
  '/privacy',
  '/legal',
  '/register',
  '/verify-email',
  '/subscribe',
  '/forgot-password',
  '/reset-password',
  '/payment-success',
  '/payment-cancelled',
  '/subscription-success',
  '/test-checkout',
] as const;
export type SpaRoute = (typeof SPA_ROUTES)[number];

/** Drops trailing slashes in one pass (`/\/+$/` backtracks quadratically on a long run of them). */
function trimTrailingSlashes(pathname: string): string {
  let end = pathname.length;
  while (end > 0 && pathname.charCodeAt(end - 1) === 47) end--;
  return pathname.slice(0, end);
}

export function isSpaRoute(pathname: string): boolean {
  const clean = pathname.length > 1 ? trimTrailingSlashes(pathname) : pathname;
  return (SPA_ROUTES as readonly string[]).includes(clean);
}
