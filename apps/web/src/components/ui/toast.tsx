import {
  Suspense,
  createContext,
  lazy,
  useCallback,
  useContext,
  useMemo,
  useState,
  type ReactNode,
} from 'react';

export type ToastVariant = 'success' | 'error' | 'info';
export interface ToastItem {
  id: number;
  title: string;
  description?: string | undefined;
  variant: ToastVariant;
  duration: number;
  /** Toasts sharing a group replace each other instead of stacking (e.g. one per conversation). */
  group?: string | undefined;
  /** A button on the toast (« Ouvrir » a conversation); the toast closes when it is pressed. */
  action?: ToastAction | undefined;
}
export interface ToastAction {
  label: string;
  /** What a screen reader says the button does (Radix's altText). */
  altText: string;
  onSelect: () => void;
}

type Notify = (toast: {
  title: string;
  description?: string;
  variant?: ToastVariant;
  duration?: number;
  group?: string;
  action?: ToastAction;
}) => void;
const ToastContext = createContext<Notify | null>(null);

// The Radix part is downloaded with the first notification.
const ToastViewport = lazy(() => import('./toast-viewport'));

// A burst of actions must not bury the page under notifications.
const MAX_VISIBLE_TOASTS = 3;
let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ToastItem[]>([]);
  const notify = useCallback<Notify>(
    ({ title, description, variant = 'info', duration = 4000, group, action }) => {
      setToasts((current) => [
        ...current.filter((t) => group === undefined || t.group !== group).slice(-(MAX_VISIBLE_TOASTS - 1)),
        { id: nextId++, title, description, variant, duration, group, action },
      ]);
    },
    [],
  );
  const close = useCallback((id: number) => {
    setToasts((current) => current.filter((x) => x.id !== id));
  }, []);
  const value = useMemo(() => notify, [notify]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      {toasts.length > 0 ? (
        <Suspense fallback={null}>
          <ToastViewport toasts={toasts} onClose={close} />
        </Suspense>
      ) : null}
    </ToastContext.Provider>
  );
}

/** Shows a toast; throws outside ToastProvider. */
export function useToast(): Notify {
  const notify = useContext(ToastContext);
  if (!notify) throw new Error('useToast doit être utilisé dans ToastProvider');
  return notify;
}
