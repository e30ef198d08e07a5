import { SESSION_TTL_DAYS } from '@securering/contract';
import type { SessionAudience } from '../../db/schema';
import { DAY_MS, MINUTE_MS, type Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { hashToken, newToken } from '../../lib/tokens';
import type { SessionRepository, SessionRow } from './session.repository';

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

export interface IssuedSession {
  token: string;
  sessionId: string;
  expiresAt: string;
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

  async issue(audience: SessionAudience, subjectId: string, meta: RequestMeta = {}): Promise<IssuedSession> {
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
    });
    return { token, sessionId, expiresAt };
  }

  /** The live session for a token, or undefined when unknown, expired, revoked or of another audience. */
  async verify(audience: SessionAudience, token: string): Promise<SessionRow | undefined> {
    if (!token || token.length > 200) return undefined;
    const now = this.clock.now();
    const session = await this.repo.findActiveByHash(audience, hashToken(token), now.toISOString());
    if (
      session &&
      (!session.last_used_at || now.getTime() - Date.parse(session.last_used_at) > TOUCH_INTERVAL_MS)
    ) {
      await this.repo.touch(session.id, now.toISOString());
    }
    return session;
  }

  async revoke(token: string): Promise<boolean> {
    return (await this.repo.revokeByHash(hashToken(token), this.clock.now().toISOString())) > 0;
  }

  async revokeAllFor(audience: SessionAudience, subjectId: string): Promise<number> {
    return this.repo.revokeAllFor(audience, subjectId, this.clock.now().toISOString());
  }

  async purge(): Promise<number> {
    const now = this.clock.now();
    return this.repo.deleteExpired(now.toISOString(), new Date(now.getTime() - DAY_MS).toISOString());
  }
}
