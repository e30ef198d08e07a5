import { createHmac } from 'node:crypto';
import { COOKIES, CSRF_HEADER, CSRF_REFUSED_MESSAGE, MESSAGES, SESSION_TTL_DAYS } from '@securering/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {
  AdminsTable,
  CustomersTable,
  RingMembersTable,
  RingsTable,
  SessionAudience,
} from '../db/schema';
import { AppError, unauthorized } from '../lib/app-error';
import { safeEqual } from '../lib/tokens';
import type { SessionService } from '../modules/sessions/session.service';
import type { SessionRow } from '../modules/sessions/session.repository';

export type AdminCaller = { kind: 'admin'; session: SessionRow; admin: AdminsTable };
export type CustomerCaller = { kind: 'customer'; session: SessionRow; customer: CustomersTable };
export type RingCaller = { kind: 'ring'; session: SessionRow; member: RingMembersTable; ring: RingsTable };
export type Caller = AdminCaller | CustomerCaller | RingCaller;

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/** The bearer token of a request, if any: the Authorization header only (API clients). */
export function extractBearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** The audiences a browser holds a session of in cookies. */
export type CookieAudience = Exclude<SessionAudience, 'stream'>;
export const COOKIE_AUDIENCES: readonly CookieAudience[] = ['customer', 'ring', 'admin'];

/**
 * Each audience's cookies (issue 27, L5): the session token, HttpOnly (page scripts never read
 * it), and its anti-forgery token, readable, which cookie-authenticated writes repeat in CSRF_HEADER.
 */
export const SESSION_COOKIES: Record<CookieAudience, { token: string; csrf: string; days: number }> = {
  customer: { token: COOKIES.customerToken, csrf: COOKIES.customerCsrf, days: SESSION_TTL_DAYS.customer },
  ring: { token: COOKIES.ringToken, csrf: COOKIES.ringCsrf, days: SESSION_TTL_DAYS.ring },
  admin: { token: COOKIES.adminToken, csrf: COOKIES.adminCsrf, days: SESSION_TTL_DAYS.admin },
};

/**
 * The anti-forgery token of a session: an HMAC keyed by the session token, so it is bound to that
 * session, needs no storage, and does not reveal the token it is derived from.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('securering-csrf-v1').digest('base64url');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request may change something (anything but GET, HEAD and OPTIONS). */
export function isWrite(request: FastifyRequest): boolean {
  return !SAFE_METHODS.has(request.method);
}

/** The session token in the audience's cookie, if any (a plausible length only). */
export function cookieToken(request: FastifyRequest, audience: CookieAudience): string | undefined {
  const value = request.cookies?.[SESSION_COOKIES[audience].token];
  return value && value.length <= 200 ? value : undefined;
}

/**
 * 403 « Requête refusée… »: the refusal names the CSRF token of each session cookie the request
 * carried (`csrf: { ring: … }`), readable by the page only as the cookies are, so a page whose CSRF
 * cookie was missing or stale tries once more at once.
 */
function csrfRefused(sessions: Array<[CookieAudience, string]>): AppError {
  const csrf = Object.fromEntries(sessions.map(([audience, token]) => [audience, csrfTokenOf(token)]));
  return new AppError(403, CSRF_REFUSED_MESSAGE, { csrf });
}

/** Whether the request repeats the CSRF token of this session token in CSRF_HEADER. */
export function hasCsrfProof(request: FastifyRequest, sessionToken: string): boolean {
  const header = request.headers[CSRF_HEADER.toLowerCase()];
  return typeof header === 'string' && safeEqual(header, csrfTokenOf(sessionToken));
}

/**
 * The session token a request presents for `audience`: the bearer when there is one (API clients;
 * a page of another site cannot add that header), else the audience's HttpOnly cookie. A
 * cookie-authenticated write must repeat the session's CSRF token (double submit, bound to the
 * session): without it → 403 « Requête refusée… », before anything is read or changed.
 */
export function extractSessionToken(request: FastifyRequest, audience: CookieAudience): string | undefined {
  const bearer = extractBearer(request);
  if (bearer) return bearer;
  const token = cookieToken(request, audience);
  if (token && isWrite(request) && !hasCsrfProof(request, token)) throw csrfRefused([[audience, token]]);
  return token;
}

/**
 * For routes open to several audiences: the bearer, or else the cookie session the request proves
 * with its CSRF header (the page names its audience that way), or for a read the first audience
 * in `audiences` with a cookie. A write with session cookies but no matching CSRF header → 403.
 */
export function extractAnySessionToken(
  request: FastifyRequest,
  audiences: readonly CookieAudience[],
): { token: string; audience?: CookieAudience } | undefined {
  const bearer = extractBearer(request);
  if (bearer) return { token: bearer };
  const present = audiences
    .map((audience) => ({ audience, token: cookieToken(request, audience) }))
    .filter((entry): entry is { audience: CookieAudience; token: string } => Boolean(entry.token));
  if (present.length === 0) return undefined;
  const proven = present.find((entry) => hasCsrfProof(request, entry.token));
  if (proven) return proven;
  if (isWrite(request)) throw csrfRefused(present.map((entry) => [entry.audience, entry.token]));
  return present[0];
}

/**
 * For routes that serve visitors too: the bearer, or the audience's cookie when the request
 * repeats its CSRF token (the page asked to be served as that session). Otherwise undefined: the
 * caller is served as a visitor, whatever cookies the browser added.
 */
export function optionalSessionToken(request: FastifyRequest, audience: CookieAudience): string | undefined {
  const bearer = extractBearer(request);
  if (bearer) return bearer;
  const token = cookieToken(request, audience);
  return token && hasCsrfProof(request, token) ? token : undefined;
}

/** Secure cookies when the page is served over HTTPS (directly, or per a trusted proxy's X-Forwarded-Proto). */
function isHttps(request: FastifyRequest, publicUrl: string): boolean {
  return request.protocol === 'https' || publicUrl.startsWith('https://');
}

/**
 * Sets a new session's cookies on the answer to its login: the token HttpOnly, both SameSite=Strict
 * and Path=/, Secure over HTTPS, for the session's lifetime. The JSON answer still carries the token
 * for API clients; the web app does not keep it.
 */
export function setSessionCookies(
  reply: FastifyReply,
  request: FastifyRequest,
  publicUrl: string,
  audience: CookieAudience,
  token: string,
): void {
  const { token: tokenName, csrf, days } = SESSION_COOKIES[audience];
  const options = {
    path: '/',
    sameSite: 'strict' as const,
    secure: isHttps(request, publicUrl),
    maxAge: days * 86_400,
  };
  reply.setCookie(tokenName, token, { ...options, httpOnly: true });
  reply.setCookie(csrf, csrfTokenOf(token), { ...options, httpOnly: false });
}

/** Clears an audience's session cookies (logout). */
export function clearSessionCookies(
  reply: FastifyReply,
  request: FastifyRequest,
  publicUrl: string,
  audience: CookieAudience,
): void {
  const { token, csrf } = SESSION_COOKIES[audience];
  const options = { path: '/', sameSite: 'strict' as const, secure: isHttps(request, publicUrl) };
  reply.clearCookie(token, { ...options, httpOnly: true });
  reply.clearCookie(csrf, options);
}

/**
 * Keeps each CSRF cookie in step with its session cookie (a session cookie set by other means, or
 * a CSRF cookie deleted): answers to requests carrying a session cookie set the matching CSRF
 * cookie when it is missing or stale. Only the page's own requests carry SameSite=Strict cookies,
 * and only the page can read what is set.
 */
export function syncCsrfCookies(request: FastifyRequest, reply: FastifyReply, publicUrl: string): void {
  const cookies = request.cookies;
  if (!cookies) return;
  for (const audience of COOKIE_AUDIENCES) {
    const token = cookieToken(request, audience);
    if (!token) continue;
    const { csrf, days } = SESSION_COOKIES[audience];
    const expected = csrfTokenOf(token);
    if (cookies[csrf] === expected) continue;
    reply.setCookie(csrf, expected, {
      path: '/',
      sameSite: 'strict',
      secure: isHttps(request, publicUrl),
      httpOnly: false,
      maxAge: days * 86_400,
    });
  }
}

/**
 * Resolves the session of one audience (bearer or cookie, see extractSessionToken): no token →
 * 401 "Non authentifié"; unknown, expired, revoked or other-audience token → 401 "Session expirée".
 */
export async function requireSession(
  sessions: SessionService,
  request: FastifyRequest,
  audience: CookieAudience,
): Promise<SessionRow> {
  const token = extractSessionToken(request, audience);
  if (!token) throw unauthorized(MESSAGES.notAuthenticated);
  const session = await sessions.verify(audience, token);
  if (!session) throw unauthorized(MESSAGES.sessionExpired);
  return session;
}

function callerOf<K extends Caller['kind']>(request: FastifyRequest, kind: K): Extract<Caller, { kind: K }> {
  const caller = request.caller;
  // A route that reads a caller without its guard is a programming error, not a client error.
  if (!caller || caller.kind !== kind) throw new AppError(500, MESSAGES.internalError);
  return caller as Extract<Caller, { kind: K }>;
}

export const adminCaller = (request: FastifyRequest) => callerOf(request, 'admin');
export const customerCaller = (request: FastifyRequest) => callerOf(request, 'customer');
export const ringCaller = (request: FastifyRequest) => callerOf(request, 'ring');

export function requestMeta(request: FastifyRequest): { ip: string; userAgent: string | null } {
  const ua = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof ua === 'string' ? ua.slice(0, 500) : null };
}
