import { COOKIES, SESSION_TTL_DAYS, type TCustomerProfile } from '@securering/contract';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, SESSION_EXPIRED_EVENT, apiRequest, clearSession, hasSession } from '../api-client';
import { logToServer } from '../client-log';
import { getJsonCookie, setJsonCookie } from '../cookies';
import { lazySchema } from '../lazy-schema';

export interface CustomerSession {
  customer: TCustomerProfile | null;
  /** True until the stored session has been checked with the server. */
  loading: boolean;
  lastError: string | null;
  login(email: string, password: string): Promise<boolean>;
  /** Logs in with the email verification token (right after verifying). */
  autoLogin(email: string, verificationToken: string): Promise<boolean>;
  logout(): Promise<void>;
  refresh(): Promise<TCustomerProfile | null>;
}

const CustomerSessionContext = createContext<CustomerSession | null>(null);

/** Who is signed in, for the page; the token is the server's HttpOnly cookie (issue 27, L5). */
function store(customer: TCustomerProfile): void {
  setJsonCookie(COOKIES.customerData, customer, SESSION_TTL_DAYS.customer);
}

/**
 * The customer session (spec 1 §4): a stored session is checked with customer-status on start; any
 * failure clears it. Login keeps the customer in a cookie for 7 days; the token is an HttpOnly
 * cookie the server sets, never read here.
 */
export function CustomerSessionProvider({ children }: { children: ReactNode }) {
  const [customer, setCustomer] = useState<TCustomerProfile | null>(() =>
    hasSession('customer') ? getJsonCookie<TCustomerProfile>(COOKIES.customerData) : null,
  );
  const [loading, setLoading] = useState<boolean>(() => hasSession('customer'));
  const [lastError, setLastError] = useState<string | null>(null);

  const reset = useCallback(() => {
    clearSession('customer');
    setCustomer(null);
  }, []);

  const refresh = useCallback(async (): Promise<TCustomerProfile | null> => {
    if (!hasSession('customer')) {
      reset();
      return null;
    }
    try {
      const res = await apiRequest('/api/auth/customer-status.php', {
        auth: 'customer',
        schema: lazySchema('ZCustomerStatusResponse'),
      });
      if (!res.customer.id) throw new ApiError('Données client invalides', 200);
      store(res.customer);
      setCustomer(res.customer);
      logToServer(
        'info',
        'auth',
        'Rafraîchissement du client réussi',
        { customerId: res.customer.id },
        res.customer.id,
      );
      return res.customer;
    } catch (error) {
      logToServer('error', 'auth', 'Échec du rafraîchissement du client', {
        error: (error as Error).message,
      });
      reset();
      return null;
    }
  }, [reset]);

  useEffect(() => {
    if (!hasSession('customer')) return;
    // A session is stored, so refresh() only sets state after the network answers.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    void refresh().finally(() => setLoading(false));
  }, [refresh]);

  useEffect(() => {
    const onExpired = (event: Event) => {
      if ((event as CustomEvent).detail === 'customer') reset();
    };
    window.addEventListener(SESSION_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(SESSION_EXPIRED_EVENT, onExpired);
  }, [reset]);

  const signIn = useCallback(async (body: Record<string, unknown>): Promise<boolean> => {
    setLastError(null);
    try {
      const res = await apiRequest('/api/auth/customer-login.php', {
        method: 'POST',
        body,
        schema: lazySchema('ZCustomerLoginResponse'),
        fallbackError: 'Email ou mot de passe incorrect',
      });
      store(res.customer);
      // In memory only: the Ring passphrase dialog refuses a passphrase equal to this password.
      if (typeof body.password === 'string')
        await (await import('./account-password')).rememberAccountPassword(body.password);
      setCustomer(res.customer);
      logToServer(
        'info',
        'auth',
        'Connexion client réussie',
        { customerId: res.customer.id, email: res.customer.email },
        res.customer.id,
      );
      return true;
    } catch (error) {
      const message = error instanceof ApiError ? error.message : 'Erreur de connexion';
      setLastError(message);
      if (error instanceof ApiError && error.status === 0) {
        logToServer('error', 'auth', 'Erreur réseau à la connexion client', { email: body.email });
      } else {
        logToServer('warning', 'auth', 'Échec de connexion client', { email: body.email, error: message });
      }
      return false;
    }
  }, []);

  const value = useMemo<CustomerSession>(
    () => ({
      customer,
      loading,
      lastError,
      login: (email, password) => signIn({ email, password }),
      autoLogin: (email, verificationToken) =>
        signIn({ email, auto_login: true, verification_token: verificationToken }),
      async logout() {
        if (hasSession('customer')) {
          await apiRequest('/api/auth/customer-logout.php', { method: 'POST', auth: 'customer' }).catch(
            () => undefined,
          );
        }
        reset();
      },
      refresh,
    }),
    [customer, loading, lastError, signIn, reset, refresh],
  );

  return <CustomerSessionContext.Provider value={value}>{children}</CustomerSessionContext.Provider>;
}

/** The customer session; throws outside CustomerSessionProvider (spec 1 §8). */
export function useCustomerSession(): CustomerSession {
  const session = useContext(CustomerSessionContext);
  if (!session) throw new Error('useCustomerSession doit être utilisé dans CustomerSessionProvider');
  return session;
}
