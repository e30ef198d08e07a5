import type { ReactNode } from 'react';
import { usePageTitle } from '@/lib/site-settings';
import { cn } from '@/lib/utils';

/** A public page's frame: tab title, heading and a centred column. */
export function PageShell({
  title,
  heading,
  intro,
  children,
  className,
  width = 'md',
}: {
  title: string;
  heading?: ReactNode;
  intro?: ReactNode;
  children?: ReactNode;
  className?: string;
  width?: 'sm' | 'md' | 'lg' | 'xl';
}) {
  usePageTitle(title);
  const max = { sm: 'max-w-md', md: 'max-w-2xl', lg: 'max-w-4xl', xl: 'max-w-6xl' }[width];
  return (
    <main className={cn('mx-auto w-full px-4 py-10 md:py-14', max, className)}>
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">{heading ?? title}</h1>
      {intro ? <div className="mt-2 text-slate-600">{intro}</div> : null}
      {children ? <div className="mt-8">{children}</div> : null}
    </main>
  );
}
