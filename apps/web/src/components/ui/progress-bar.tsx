import { cn } from '@/lib/utils';

/**
 * A horizontal progress bar from 0 to 100, named by `label` for screen readers (uploads, the
 * storage used). `className` styles the track (height, background), `barClassName` the filled part.
 */
export function ProgressBar({
  label,
  percent,
  className,
  barClassName,
}: {
  label: string;
  percent: number;
  className?: string;
  barClassName?: string;
}) {
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(percent)}
      className={cn('overflow-hidden rounded-full', className)}
    >
      <div className={cn('h-full', barClassName ?? 'bg-primary')} style={{ width: `${percent}%` }} />
    </div>
  );
}
