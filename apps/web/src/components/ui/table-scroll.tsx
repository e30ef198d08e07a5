import type { ReactNode } from 'react';
import { cn } from '@/lib/utils';

/**
 * A wide table's own scrolling box: on a narrow screen the table scrolls sideways inside it and the
 * page never widens. Positioned, so the table's visually hidden labels (`sr-only`, absolutely
 * positioned) stay inside it too; focusable, so the keyboard can scroll it.
 */
export function TableScroll({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={cn('relative overflow-x-auto', className)}>
      {children}
    </div>
  );
}
