import {
  COOKIES,
  SESSION_TTL_DAYS,
  type TRingLoginSelection,
  type TRingSessionRing,
  type TRingSessionUser,
} from '@securering/contract';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, SESSION_EXPIRED_EVENT, apiRequest, clearSession, hasSession } from '../api-client';
import { logToServer } from '../client-log';
import { getJsonCookie, setJsonCookie } from '../cookies';
import { lazySchema } from '../lazy-schema';

export type RingLoginInput =
  { email: string; password: string; ring_id?: string } | { invite_code: string; password: string };
export type RingLoginOutcome =
  { ok: true } | { ok: false; selection: TRingLoginSelection['rings'] } | { ok: false; error: string };

export interface RingSession {
  user: TRingSessionUser | null;
  ring: TRingSessionRing | null;
  login(input: RingLoginInput): Promise<RingLoginOutcome>;
  acceptInvite(input: {
    invite_code: string;
    username: string;
    email: string;
    password: string;
  }): Promise<RingLoginOutcome>;
  /**
   * "Accéder à mon Ring" from the customer space: a Ring session for the customer's owner member of
   * one of its Rings, from the customer session (no second login).
   */
  enterAsOwner(ringId: string): Promise<RingLoginOutcome>;
  logout(): Promise<void>;
}

const RingSessionContext = createContext<RingSession | null>(null);

/** Who is signed in, for the page; the token is the server's HttpOnly cookie (issue 27, L5). */
function store(user: TRingSessionUser, ring: TRingSessionRing): void {
  setJsonCookie(COOKIES.ringUser, user, SESSION_TTL_DAYS.ring);
  setJsonCookie(COOKIES.ringRing, ring, SESSION_TTL_DAYS.ring);
}

/**
 * The Ring session (spec 2 §9): token, user and Ring in cookies for 7 days, so a reload or a closed
 * tab keeps it — the token HttpOnly, set and cleared by the server, never read here. A 401 on any
 * Ring call clears it.
 */
export function RingSessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<TRingSessionUser | null>(() =>
    hasSession('ring') ? getJsonCookie<TRingSessionUser>(COOKIES.ringUser) : null,
  );
  const [ring, setRing] = useState<TRingSessionRing | null>(() =>
    hasSession('ring') ? getJsonCookie<TRingSessionRing>(COOKIES.ringRing) : null,
  );

  const reset = useCallback(() => {
    clearSession('ring');
    setUser(null);
    setRing(null);
  }, []);

  useEffect(() => {
    const onExpired = (event: Event) => {
      if ((event as CustomEvent).detail === 'ring') reset();
    };
    window.addEventListener(SESSION_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(SESSION_EXPIRED_EVENT, onExpired);
  }, [reset]);

  const open = useCallback(
    async (path: string, body: object, fallback: string, auth?: 'customer'): Promise<RingLoginOutcome> => {
      let json: unknown;
      try {
        json = await apiRequest(path, {
          method: 'POST',
          body,
          fallbackError: fallback,
          ...(auth ? { auth } : {}),
        });
      } catch (error) {
        if (error instanceof ApiError && error.body) {
          const schema = await lazySchema('ZRingLoginSelection')().catch(() => null);
          const selection = schema?.safeParse(error.body);
          if (selection?.success) return { ok: false, selection: selection.data.rings };
        }
        const message = error instanceof ApiError ? error.message : fallback;
        logToServer(
          error instanceof ApiError && error.kind === 'network' ? 'error' : 'warning',
          'auth',
          'Échec d’accès à un Ring',
          { path, error: message },
        );
        return {
          ok: false,
          error: error instanceof ApiError && error.kind === 'network' ? 'network' : message,
        };
      }
      const schema = await lazySchema('ZRingLoginResponse')().catch(() => null);
      if (!schema) return { ok: false, error: 'network' };
      const parsed = schema.safeParse(json);
      if (!parsed.success) return { ok: false, error: fallback };
      store(parsed.data.user, parsed.data.ring);
      // In memory only: the passphrase dialog refuses a passphrase equal to the account password.
      if ('password' in body && typeof body.password === 'string')
        await (await import('./account-password')).rememberAccountPassword(body.password);
      setUser(parsed.data.user);
      setRing(parsed.data.ring);
      logToServer(
        'info',
        'auth',
        'Connexion à un Ring réussie',
        { ringId: parsed.data.ring.id },
        parsed.data.user.id,
      );
      return { ok: true };
    },
    [],
  );

  const value = useMemo<RingSession>(
    () => ({
      user,
      ring,
      login: (input) => open('/api/rings/login.php', input, 'Identifiants incorrects'),
      acceptInvite: (input) =>
        open(
          '/api/rings/accept-invite.php',
          { ...input, email: input.email || null },
          'Acceptation impossible',
        ),
      async enterAsOwner(ringId) {
        // A Ring session left from earlier (another Ring, another member) ends first.
        if (hasSession('ring'))
          await apiRequest('/api/rings/logout.php', { method: 'POST', auth: 'ring', body: {} }).catch(
            () => undefined,
          );
        return open(
          '/api/customer/ring-session.php',
          { ring_id: ringId },
          'Accès au Ring impossible',
          'customer',
        );
      },
      async logout() {
        if (hasSession('ring'))
          await apiRequest('/api/rings/logout.php', { method: 'POST', auth: 'ring', body: {} }).catch(
            () => undefined,
          );
        // « Se souvenir sur cet appareil » lasts until logout: the kept keys go with the session
        // (the database of lib/remembered-keys.ts, deleted here without loading that module).
        await new Promise<void>((resolve) => {
          try {
            const req = indexedDB.deleteDatabase('securering-device-keys');
            req.onsuccess = req.onerror = req.onblocked = () => resolve();
          } catch {
            resolve();
          }
        });
        reset();
      },
    }),
    [user, ring, open, reset],
  );
  return <RingSessionContext.Provider value={value}>{children}</RingSessionContext.Provider>;
}

/** The Ring session; throws outside RingSessionProvider. */
export function useRingSession(): RingSession {
  const session = useContext(RingSessionContext);
  if (!session) throw new Error('useRingSession doit être utilisé dans RingSessionProvider');
  return session;
}
