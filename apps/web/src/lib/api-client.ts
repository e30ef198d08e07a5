import { COOKIES, MESSAGES } from '@securering/contract';
import type { z } from 'zod';
import { logToServer } from './client-log';
import { getCookie, removeCookie } from './cookies';

export type Audience = 'customer' | 'ring' | 'admin';

const TOKEN_COOKIE: Record<Audience, string> = {
  customer: COOKIES.customerToken,
  ring: COOKIES.ringToken,
  admin: COOKIES.adminToken,
};
const DATA_COOKIES: Record<Audience, string[]> = {
  customer: [COOKIES.customerToken, COOKIES.customerData],
  ring: [COOKIES.ringToken, COOKIES.ringUser, COOKIES.ringRing],
  admin: [COOKIES.adminToken, COOKIES.adminUser],
};

/** A failed call, with the French message to show. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body?: unknown,
    /** network: no answer; http: an error answer; data: an answer that does not match the contract. */
    readonly kind: 'network' | 'http' | 'data' = status === 0 ? 'network' : 'http',
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const SESSION_EXPIRED_EVENT = 'securering:session-expired';

export function getToken(audience: Audience): string | null {
  return getCookie(TOKEN_COOKIE[audience]);
}

/** Clears one audience's cookies; providers listen to the event to reset their state. */
export function clearSession(audience: Audience): void {
  for (const name of DATA_COOKIES[audience]) removeCookie(name);
}

export interface RequestOptions<S extends z.ZodType | undefined> {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /** Sends the bearer token of this audience; a missing token fails with "Non authentifié". */
  auth?: Audience;
  /** Validates the success answer. */
  schema?: S;
  signal?: AbortSignal;
  /** Message when the server gives none. */
  fallbackError?: string;
}

type Result<S> = S extends z.ZodType ? z.output<S> : unknown;

/**
 * JSON calls to the SecureRing API. A 401 on an authenticated call clears that session and raises
 * "Session expirée"; failures of authenticated calls are also reported to the server log.
 */
export async function apiRequest<S extends z.ZodType | undefined = undefined>(
  path: string,
  options: RequestOptions<S> = {},
): Promise<Result<S>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.auth) {
    const token = getToken(options.auth);
    if (!token) throw new ApiError(MESSAGES.notAuthenticated, 401);
    headers.Authorization = `Bearer ${token}`;
  }
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }

  let response: Response;
  try {
    response = await fetch(path, { method: options.method ?? 'GET', headers, body, signal: options.signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError('Erreur de connexion au serveur', 0);
  }

  let json: unknown;
  try {
    json = await response.json();
  } catch {
    json = undefined;
  }
  const envelope = (json ?? {}) as { success?: boolean; error?: string; message?: string };

  if (!response.ok || envelope.success === false) {
    if (response.status === 401 && options.auth) {
      clearSession(options.auth);
      window.dispatchEvent(new CustomEvent(SESSION_EXPIRED_EVENT, { detail: options.auth }));
      throw new ApiError(MESSAGES.sessionExpired, 401, json);
    }
    const message =
      envelope.error ??
      envelope.message ??
      options.fallbackError ??
      `HTTP ${response.status}: Réponse vide du serveur`;
    if (options.auth) {
      logToServer('error', 'api', 'Échec d’une requête authentifiée', {
        url: path,
        error: message,
        status: response.status,
      });
    }
    throw new ApiError(message, response.status, json);
  }
  if (options.schema) {
    const parsed = options.schema.safeParse(json);
    if (!parsed.success) {
      logToServer('error', 'api', 'Réponse inattendue du serveur', {
        url: path,
        issues: parsed.error.issues.slice(0, 3),
      });
      throw new ApiError(
        options.fallbackError ?? 'Réponse inattendue du serveur',
        response.status,
        json,
        'data',
      );
    }
    return parsed.data as Result<S>;
  }
  return json as Result<S>;
}
