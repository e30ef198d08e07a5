import { SESSION_TTL_DAYS } from '@securering/contract';
import type { SessionAudience } from '../../db/schema';
import { DAY_MS, HOUR_MS, MINUTE_MS, type Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { hashToken, newToken } from '../../lib/tokens';
import type { SessionRepository, SessionRow, SubjectRule } from './session.repository';

/** Stream tokens only open a socket; they live minutes, not days. */
export const STREAM_TOKEN_TTL_MS = 5 * MINUTE_MS;

const TTL_MS: Record<SessionAudience, number> = {
  customer: SESSION_TTL_DAYS.customer * DAY_MS,
  ring: SESSION_TTL_DAYS.ring * DAY_MS,
  admin: SESSION_TTL_DAYS.admin * DAY_MS,
  stream: STREAM_TOKEN_TTL_MS,
};

// last_used_at is refreshed at most this often, so authenticated reads do not all write.
const TOUCH_INTERVAL_MS = MINUTE_MS;

/** An admin session unused for this long ends, well before its 30-day absolute expiry. */
export const ADMIN_IDLE_TIMEOUT_MS = 12 * HOUR_MS;

/**
 * True when an admin session has been idle past the timeout: measured from its last use (known to
 * the minute, see TOUCH_INTERVAL_MS) or, never used, from its creation.
 */
export function isIdleExpired(
  session: Pick<SessionRow, 'audience' | 'created_at' | 'last_used_at'>,
  now: Date,
): boolean {
  if (session.audience !== 'admin') return false;
  const lastActivity = Date.parse(session.last_used_at ?? session.created_at);
  return now.getTime() - lastActivity > ADMIN_IDLE_TIMEOUT_MS;
}

export interface IssuedSession {
  token: string;
  sessionId: string;
  expiresAt: string;
}

/** What a consumed stream token opens a socket for: a member, under the Ring session that minted it. */
export interface StreamGrant {
  memberId: string;
  sessionId: string;
}

export interface RequestMeta {
  ip?: string | null;
  userAgent?: string | null;
}

/**
 * Opaque bearer sessions for four audiences. A token is looked up by hash and audience, so a token
 * minted for one audience is worthless for another.
 */
export class SessionService {
  constructor(
    private readonly repo: SessionRepository,
    private readonly clock: Clock,
  ) {}

  async issue(
    audience: SessionAudience,
    subjectId: string,
    meta: RequestMeta = {},
    parentSessionId: string | null = null,
  ): Promise<IssuedSession> {
    const token = newToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + TTL_MS[audience]).toISOString();
    const sessionId = newId();
    await this.repo.create({
      id: sessionId,
      audience,
      subject_id: subjectId,
      token_hash: hashToken(token),
      created_at: now.toISOString(),
      expires_at: expiresAt,
      last_used_at: null,
      revoked_at: null,
      ip_address: meta.ip?.slice(0, 100) ?? null,
      user_agent: meta.userAgent?.slice(0, 500) ?? null,
      parent_session_id: parentSessionId,
      used_at: null,
    });
    return { token, sessionId, expiresAt };
  }

  /** A stream token for the member of a Ring session, bound to that session (it dies with it). */
  async issueStreamToken(
    ringSession: Pick<SessionRow, 'id' | 'subject_id'>,
    meta: RequestMeta = {},
  ): Promise<IssuedSession> {
    return this.issue('stream', ringSession.subject_id, meta, ringSession.id);
  }

  /**
   * Uses up a stream token for one socket: the token must be live and unused, the Ring session
   * that minted it still live and its subject allowed (the caller's condition: an active member of
   * a serviceable Ring), in one statement. Returns the member and that Ring session, or undefined.
   */
  async consumeStreamToken(token: string, subjectAllowed: SubjectRule): Promise<StreamGrant | undefined> {
    if (!token || token.length > 200) return undefined;
    const stream = await this.repo.consumeStream(
      hashToken(token),
      this.clock.now().toISOString(),
      subjectAllowed,
    );
    return stream?.parent_session_id
      ? { memberId: stream.subject_id, sessionId: stream.parent_session_id }
      : undefined;
  }

  /**
   * The live session for a token, or undefined when unknown, expired, revoked, of another audience
   * or (admin audience) idle for more than ADMIN_IDLE_TIMEOUT_MS — an idle session is revoked.
   */
  async verify(audience: SessionAudience, token: string): Promise<SessionRow | undefined> {
    const tokenHash = this.tokenHashOf(token);
    if (!tokenHash) return undefined;
    const now = this.clock.now();
    const session = await this.repo.findActiveByHash(audience, tokenHash, now.toISOString());
    if (session && isIdleExpired(session, now)) {
      await this.repo.revokeByHash(session.token_hash, now.toISOString());
      return undefined;
    }
    if (session) await this.touchIfStale(session, now);
    return session;
  }

  /**
   * The hash a presented token is looked up by, or undefined for what cannot be a token (for
   * callers that read the session in a query of their own: Ring requests, see ring.guard.ts).
   */
  tokenHashOf(token: string | undefined): string | undefined {
    return token && token.length <= 200 ? hashToken(token) : undefined;
  }

  /**
   * Records a session's use, at most once per TOUCH_INTERVAL_MS. A closing session (its last tab
   * closed, see closeSoon) used again within the grace — a reload — gets its expiry back.
   */
  async touchIfStale(
    session: Pick<SessionRow, 'id' | 'last_used_at'> & Partial<Pick<SessionRow, 'closing_expires_at'>>,
    now: Date,
  ): Promise<void> {
    if (session.closing_expires_at) await this.repo.reopen(session.id, now.toISOString());
    else if (!session.last_used_at || now.getTime() - Date.parse(session.last_used_at) > TOUCH_INTERVAL_MS)
      await this.repo.touch(session.id, now.toISOString());
  }

  /**
   * The last tab of a session closed: it ends after `graceMs` unless a request of the same session
   * comes first (touchIfStale), so a reload keeps it. Its stream tokens die with it.
   */
  async closeSoon(sessionId: string, graceMs: number): Promise<void> {
    const now = this.clock.now();
    await this.repo.markClosing(
      sessionId,
      new Date(now.getTime() + graceMs).toISOString(),
      now.toISOString(),
    );
  }

  /** Ends the session of a token, and the stream tokens it minted. */
  async revoke(token: string): Promise<boolean> {
    return (await this.repo.revokeByHash(hashToken(token), this.clock.now().toISOString())) > 0;
  }

  async revokeAllFor(audience: SessionAudience, subjectId: string): Promise<number> {
    return this.repo.revokeAllFor(audience, subjectId, this.clock.now().toISOString());
  }

  /** Revokes every session of these audiences for these subjects (in batches: lists may be long). */
  async revokeAllForSubjects(audiences: SessionAudience[], subjectIds: string[]): Promise<number> {
    const nowIso = this.clock.now().toISOString();
    let revoked = 0;
    for (let i = 0; i < subjectIds.length; i += 500)
      revoked += await this.repo.revokeAllForSubjects(audiences, subjectIds.slice(i, i + 500), nowIso);
    return revoked;
  }

  /** Ends every other session of the subject, keeping the one the request came with. */
  async revokeOthers(audience: SessionAudience, subjectId: string, keepSessionId: string): Promise<number> {
    return this.repo.revokeAllForExcept(audience, subjectId, keepSessionId, this.clock.now().toISOString());
  }

  /** Stream tokens are single use and live minutes: once spent they go at once, not with the hourly purge. */
  async purgeStreamTokens(): Promise<number> {
    return this.repo.deleteSpentStreamTokens(this.clock.now().toISOString());
  }

  async purge(): Promise<number> {
    const now = this.clock.now();
    return this.repo.deleteExpired(now.toISOString(), new Date(now.getTime() - DAY_MS).toISOString());
  }
}
