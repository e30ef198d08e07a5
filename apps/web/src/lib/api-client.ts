import { COOKIES, CSRF_HEADER, MESSAGES } from '@securering/contract';
import type { z } from 'zod';
import { logToServer } from './client-log';
import { getCookie, removeCookie } from './cookies';
import { saveBlob } from './save-blob';
import { SERVICE_RESTORED_EVENT, SERVICE_UNAVAILABLE_EVENT, serviceRetryDelayMs } from './service-retry';

export type Audience = 'customer' | 'ring' | 'admin';

/**
 * The session token itself is an HttpOnly cookie the server sets and clears (issue 27, L5): the
 * page never reads it. What the page reads: the data cookie saying who is signed in, and the CSRF
 * cookie its writes repeat in CSRF_HEADER.
 */
const SESSION_DATA_COOKIE: Record<Audience, string> = {
  customer: COOKIES.customerData,
  ring: COOKIES.ringUser,
  admin: COOKIES.adminUser,
};
const CSRF_COOKIE: Record<Audience, string> = {
  customer: COOKIES.customerCsrf,
  ring: COOKIES.ringCsrf,
  admin: COOKIES.adminCsrf,
};
const DATA_COOKIES: Record<Audience, string[]> = {
  customer: [COOKIES.customerData],
  ring: [COOKIES.ringUser, COOKIES.ringRing],
  admin: [COOKIES.adminUser],
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

/** Whether the page holds a session of this audience (its data cookie, written at sign-in). */
export function hasSession(audience: Audience): boolean {
  return getCookie(SESSION_DATA_COOKIE[audience]) !== null;
}

/** The audience's CSRF token (set by the server beside the HttpOnly session cookie), if any. */
export function csrfToken(audience: Audience): string | null {
  return getCookie(CSRF_COOKIE[audience]);
}

/** The headers that authenticate a call as `audience` besides the session cookie: its CSRF token. */
export function sessionHeaders(audience: Audience): Record<string, string> {
  const token = csrfToken(audience);
  return token ? { [CSRF_HEADER]: token } : {};
}

/** Clears one audience's readable cookies; providers listen to the event to reset their state. */
export function clearSession(audience: Audience): void {
  for (const name of DATA_COOKIES[audience]) removeCookie(name);
}

export interface RequestOptions<S extends z.ZodType | undefined> {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /**
   * Calls as this audience: the browser adds its HttpOnly session cookie, the call adds the CSRF
   * header; without a session of this audience it fails with "Non authentifié".
   */
  auth?: Audience;
  /** Validates the success answer: a schema, or a loader of one (`lazySchema`, for shell code). */
  schema?: S | (() => Promise<S>);
  signal?: AbortSignal;
  /** Message when the server gives none. */
  fallbackError?: string;
  /** Message when the server cannot be reached. */
  networkError?: string;
  /** Extra headers (e.g. the realtime calls' X-Timestamp). */
  headers?: Record<string, string>;
  cache?: RequestCache;
  accept?: string;
}

type Result<S> = S extends z.ZodType ? z.output<S> : unknown;
type SendOptions = Omit<RequestOptions<undefined>, 'schema'>;

/**
 * Sends a call; a 503 with Retry-After (a dependency of the server is down, the call was not
 * served) is sent again after a growing delay (serviceRetryDelayMs), and the page is told meanwhile
 * (SERVICE_UNAVAILABLE_EVENT, then SERVICE_RESTORED_EVENT once a retry is answered).
 */
async function send(path: string, options: SendOptions): Promise<Response> {
  // Checked once: a retry goes on even if the page dropped the session meanwhile (a logout).
  if (options.auth && !hasSession(options.auth)) throw new ApiError(MESSAGES.notAuthenticated, 401);
  let csrfRetried = false;
  for (let attempt = 0; ; attempt++) {
    const response = await sendOnce(path, options);
    // Refused for a missing or stale CSRF cookie: the refusal names the session's token (the
    // cookie it also sets may not show in document.cookie yet), so one more try with it.
    if (!csrfRetried && options.auth && response.status === 403) {
      const { csrf } = ((await response
        .clone()
        .json()
        .catch(() => undefined)) ?? {}) as { csrf?: Partial<Record<Audience, unknown>> };
      const fresh = csrf?.[options.auth];
      if (typeof fresh === 'string') {
        csrfRetried = true;
        options = { ...options, headers: { ...options.headers, [CSRF_HEADER]: fresh } };
        attempt--;
        continue;
      }
    }
    const delay = serviceRetryDelayMs(response.status, response.headers.get('Retry-After'), attempt);
    if (delay === undefined || options.signal?.aborted) {
      if (attempt > 0 && response.status !== 503)
        window.dispatchEvent(new CustomEvent(SERVICE_RESTORED_EVENT));
      return response;
    }
    window.dispatchEvent(new CustomEvent(SERVICE_UNAVAILABLE_EVENT, { detail: { retryInMs: delay } }));
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** Sends one call as the audience; an unreachable server becomes a `network` ApiError. */
async function sendOnce(path: string, options: SendOptions): Promise<Response> {
  const headers: Record<string, string> = {
    Accept: options.accept ?? 'application/json',
    ...(options.auth ? sessionHeaders(options.auth) : {}),
    ...options.headers,
  };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  try {
    return await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body,
      signal: options.signal,
      ...(options.cache ? { cache: options.cache } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(options.networkError ?? 'Erreur de connexion au serveur', 0);
  }
}

/**
 * Turns an error answer into an ApiError with the server's French message. A 401 on an
 * authenticated call ends that session; other failures of authenticated calls are logged.
 */
function fail(path: string, response: Response, json: unknown, options: SendOptions): never {
  if (response.status === 401 && options.auth) {
    clearSession(options.auth);
    window.dispatchEvent(new CustomEvent(SESSION_EXPIRED_EVENT, { detail: options.auth }));
    throw new ApiError(MESSAGES.sessionExpired, 401, json);
  }
  const envelope = (json ?? {}) as { error?: string; message?: string };
  const message =
    envelope.error ??
    envelope.message ??
    options.fallbackError ??
    `HTTP ${response.status}\u202f: Réponse vide du serveur`;
  if (options.auth) {
    logToServer('error', 'api', 'Échec d’une requête authentifiée', {
      url: path,
      error: message,
      status: response.status,
    });
  }
  throw new ApiError(message, response.status, json);
}

/** The schema itself, or the one its loader brings (a failed download reads as a network error). */
async function resolveSchema<S extends z.ZodType>(
  schema: S | (() => Promise<S>),
  networkError: string | undefined,
): Promise<S> {
  if (typeof schema !== 'function') return schema;
  try {
    return await schema();
  } catch {
    throw new ApiError(networkError ?? 'Erreur de connexion au serveur', 0);
  }
}

/** JSON calls to the SecureRing API, checked against the contract when a schema is given. */
export async function apiRequest<S extends z.ZodType | undefined = undefined>(
  path: string,
  options: RequestOptions<S> = {},
): Promise<Result<S>> {
  const response = await send(path, options);
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    json = undefined;
  }
  if (!response.ok || (json as { success?: boolean } | undefined)?.success === false) {
    fail(path, response, json, options);
  }
  if (options.schema) {
    const schema = await resolveSchema(
      options.schema as z.ZodType | (() => Promise<z.ZodType>),
      options.networkError,
    );
    const parsed = schema.safeParse(json);
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

/**
 * Downloads a file the API serves behind a session (with the CSRF header) and saves it
 * under `filename`, or the name the answer's `Content-Disposition` gives when it is a function.
 */
export async function apiDownload(
  path: string,
  options: SendOptions & { filename: string | ((disposition: string | null) => string) },
): Promise<void> {
  const response = await send(path, options);
  if (!response.ok) fail(path, response, await response.json().catch(() => undefined), options);
  const name =
    typeof options.filename === 'function'
      ? options.filename(response.headers.get('Content-Disposition'))
      : options.filename;
  saveBlob(name, await response.blob());
}
