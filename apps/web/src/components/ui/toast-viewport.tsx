import { X } from 'lucide-react';
import { Toast as ToastPrimitive } from 'radix-ui';
import { cn } from '@/lib/utils';
import type { ToastItem } from './toast';

/**
 * The notifications on screen (Radix Toast: announced to screen readers, swipe or Escape to
 * close). Loaded with the first notification, so pages do not download it before they need it.
 */
export default function ToastViewport({
  toasts,
  onClose,
}: {
  toasts: ToastItem[];
  onClose: (id: number) => void;
}) {
  return (
    <ToastPrimitive.Provider swipeDirection="right">
      {toasts.map((t) => (
        <ToastPrimitive.Root
          key={t.id}
          duration={t.duration}
          onOpenChange={(open) => {
            if (!open) onClose(t.id);
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
            {t.action ? (
              <ToastPrimitive.Action
                altText={t.action.altText}
                className="mt-1 inline-flex h-8 items-center rounded-md border border-slate-200 px-3 text-sm font-medium text-primary hover:bg-slate-50 pointer-coarse:h-11"
                onClick={t.action.onSelect}
              >
                {t.action.label}
              </ToastPrimitive.Action>
            ) : null}
          </div>
          <ToastPrimitive.Close
            className="absolute right-0.5 top-0.5 inline-flex size-11 items-center justify-center rounded-md text-slate-400 hover:text-slate-700"
            aria-label="Fermer"
          >
            <X className="size-4" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport className="fixed bottom-4 right-4 z-[100] flex w-[360px] max-w-[calc(100vw-2rem)] flex-col gap-2" />
    </ToastPrimitive.Provider>
  );
}
