import { X } from 'lucide-react';
import { Toast as ToastPrimitive } from 'radix-ui';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { cn } from '@/lib/utils';

export type ToastVariant = 'success' | 'error' | 'info';
interface ToastItem {
  id: number;
  title: string;
  description?: string | undefined;
  variant: ToastVariant;
  duration: number;
}

type Notify = (toast: {
  title: string;
  description?: string;
  variant?: ToastVariant;
  duration?: number;
}) => void;
const ToastContext = createContext<Notify | null>(null);

// A burst of actions must not bury the page under notifications.
const MAX_VISIBLE_TOASTS = 3;
let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ToastItem[]>([]);
  const notify = useCallback<Notify>(({ title, description, variant = 'info', duration = 4000 }) => {
    setToasts((current) => [
      ...current.slice(-(MAX_VISIBLE_TOASTS - 1)),
      { id: nextId++, title, description, variant, duration },
    ]);
  }, []);
  const value = useMemo(() => notify, [notify]);
  return (
    <ToastContext.Provider value={value}>
      <ToastPrimitive.Provider swipeDirection="right">
        {children}
        {toasts.map((t) => (
          <ToastPrimitive.Root
            key={t.id}
            duration={t.duration}
            onOpenChange={(open) => {
              if (!open) setToasts((current) => current.filter((x) => x.id !== t.id));
            }}
            className={cn(
              'relative flex w-full items-start gap-3 rounded-lg border bg-white p-4 pr-10 shadow-lg',
              t.variant === 'error' && 'border-red-200',
              t.variant === 'success' && 'border-emerald-200',
            )}
          >
            <div className="space-y-1">
              <ToastPrimitive.Title
                className={cn(
                  'text-sm font-semibold',
                  t.variant === 'error' && 'text-red-700',
                  t.variant === 'success' && 'text-emerald-700',
                )}
              >
                {t.title}
              </ToastPrimitive.Title>
              {t.description ? (
                <ToastPrimitive.Description className="text-sm text-slate-600">
                  {t.description}
                </ToastPrimitive.Description>
              ) : null}
            </div>
            <ToastPrimitive.Close
              className="absolute right-3 top-3 text-slate-400 hover:text-slate-700"
              aria-label="Fermer"
            >
              <X className="size-4" />
            </ToastPrimitive.Close>
          </ToastPrimitive.Root>
        ))}
        <ToastPrimitive.Viewport className="fixed bottom-4 right-4 z-[100] flex w-[360px] max-w-[calc(100vw-2rem)] flex-col gap-2" />
      </ToastPrimitive.Provider>
    </ToastContext.Provider>
  );
}

/** Shows a toast; throws outside ToastProvider. */
export function useToast(): Notify {
  const notify = useContext(ToastContext);
  if (!notify) throw new Error('useToast doit être utilisé dans ToastProvider');
  return notify;
}
