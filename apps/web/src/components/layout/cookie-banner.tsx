import { COOKIES } from '@securering/contract';
import { Suspense, lazy, useState } from 'react';
import { getCookie } from '@/lib/cookies';

const CookieBannerPanel = lazy(() =>
  import('./cookie-banner-panel').then((m) => ({ default: m.CookieBannerPanel })),
);

/**
 * The cookie banner while no consent is stored: its code loads only then, so visitors who have
 * already chosen (365 days) never download it.
 */
export function CookieBanner() {
  const [needed] = useState(() => getCookie(COOKIES.consent) === null);
  if (!needed) return null;
  return (
    <Suspense fallback={null}>
      <CookieBannerPanel />
    </Suspense>
  );
}
