import { AlertCircle, AlertTriangle, CheckCircle2, Info, RefreshCw } from 'lucide-react';
import type { ReactNode } from 'react';
import { cn } from '@/lib/utils';
import { Button } from './button';

const STYLES = {
  error: 'border-red-200 bg-red-50 text-red-800',
  success: 'border-emerald-200 bg-emerald-50 text-emerald-800',
  info: 'border-blue-200 bg-blue-50 text-blue-800',
  warning: 'border-amber-300 bg-amber-50 text-amber-900',
} as const;
const ICONS = { error: AlertCircle, success: CheckCircle2, info: Info, warning: AlertTriangle } as const;

export function Alert({
  variant = 'info',
  title,
  children,
  className,
}: {
  variant?: keyof typeof STYLES;
  title?: ReactNode;
  children?: ReactNode;
  className?: string;
}) {
  const Icon = ICONS[variant];
  return (
    <div
      role={variant === 'error' ? 'alert' : 'status'}
      className={cn('flex gap-3 rounded-lg border p-4 text-sm', STYLES[variant], className)}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden />
      <div className="space-y-1">
        {title ? <p className="font-semibold">{title}</p> : null}
        {children ? <div>{children}</div> : null}
      </div>
    </div>
  );
}

/**
 * A query that failed to load: an error alert with an optional detail and a "Réessayer" button
 * (with the refresh icon when `refreshIcon` is set).
 */
export function LoadError({
  title = 'Impossible de charger les données.',
  message,
  onRetry,
  refreshIcon = false,
}: {
  title?: ReactNode;
  message?: ReactNode;
  onRetry: () => void;
  refreshIcon?: boolean;
}) {
  return (
    <Alert variant="error" title={title}>
      {message !== undefined ? <p>{message}</p> : null}
      <Button variant="outline" size="sm" className="mt-2" onClick={onRetry}>
        {refreshIcon ? (
          <>
            <RefreshCw aria-hidden /> Réessayer
          </>
        ) : (
          'Réessayer'
        )}
      </Button>
    </Alert>
  );
}
