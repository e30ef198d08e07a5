import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { PublicFrame } from '@/components/layout/public-frame';
import { FullPageSpinner } from '@/components/ui/spinner';

/** Header and footer around the public pages. */
export function PublicLayout() {
  return (
    <PublicFrame>
      <Suspense fallback={<FullPageSpinner />}>
        <Outlet />
      </Suspense>
    </PublicFrame>
  );
}
