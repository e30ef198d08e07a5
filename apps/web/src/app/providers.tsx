import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ToastProvider } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { CustomerSessionProvider } from '@/lib/auth/customer-session';
import { RingSessionProvider } from '@/lib/auth/ring-session';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Client errors (4xx) will not fix themselves: retry only network and server failures.
      retry: (failureCount, error) =>
        failureCount < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <CustomerSessionProvider>
          <RingSessionProvider>{children}</RingSessionProvider>
        </CustomerSessionProvider>
      </ToastProvider>
    </QueryClientProvider>
  );
}
