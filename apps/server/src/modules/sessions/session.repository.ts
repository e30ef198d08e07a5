import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../../db/database';
import { precompiledQuery } from '../../db/precompiled-query';
import type { DB, SessionAudience, SessionsTable } from '../../db/schema';

export type SessionRow = SessionsTable;

/** A live session of `audience` (not revoked, not expired), as a condition on `sessions`. */
export function liveSession(
  eb: ExpressionBuilder<DB, 'sessions'>,
  audience: SessionAudience,
  nowIso: string,
): Expression<SqlBool> {
  return eb.and([
    eb('sessions.audience', '=', audience),
    eb('sessions.revoked_at', 'is', null),
    eb('sessions.expires_at', '>', nowIso),
  ]);
}

/** Runs on every authenticated request: built and compiled once. */
const activeSessionByHash = precompiledQuery(
  (db: Database, audience: SessionAudience, tokenHash: string, nowIso: string) =>
    db
      .selectFrom('sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where((eb) => liveSession(eb, audience, nowIso)),
);

/** A condition on a session's subject, in a statement on `sessions`. */
export type SubjectRule = (eb: ExpressionBuilder<DB, 'sessions'>, nowIso: string) => Expression<SqlBool>;

/** consumeStream's statement for each subject rule, built and compiled once (every socket handshake). */
const consumeStreamQueries = new Map<SubjectRule, ReturnType<typeof buildConsumeStreamQuery>>();
function buildConsumeStreamQuery(subjectAllowed: SubjectRule) {
  return precompiledQuery((db: Database, tokenHash: string, nowIso: string) =>
    db
      .updateTable('sessions')
      .set({ used_at: nowIso, last_used_at: nowIso })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where((eb) => liveSession(eb, 'stream', nowIso))
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('sessions as parent')
            .select('parent.id')
            .whereRef('parent.id', '=', 'sessions.parent_session_id')
            .whereRef('parent.subject_id', '=', 'sessions.subject_id')
            .where('parent.audience', '=', 'ring')
            .where('parent.revoked_at', 'is', null)
            .where('parent.expires_at', '>', nowIso),
        ),
      )
      .where((eb) => subjectAllowed(eb, nowIso))
      .returning(['subject_id', 'parent_session_id']),
  );
}
function consumeStreamQuery(subjectAllowed: SubjectRule) {
  let query = consumeStreamQueries.get(subjectAllowed);
  if (!query) {
    query = buildConsumeStreamQuery(subjectAllowed);
    consumeStreamQueries.set(subjectAllowed, query);
  }
  return query;
}

export class SessionRepository {
  constructor(private readonly db: Database) {}

  /** A new session (closing_expires_at, added later, is left to its null default). */
  async create(row: Omit<SessionRow, 'closing_expires_at'>): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  async findActiveByHash(
    audience: SessionAudience,
    tokenHash: string,
    nowIso: string,
  ): Promise<SessionRow | undefined> {
    return (await activeSessionByHash(this.db, audience, tokenHash, nowIso))[0];
  }

  async touch(id: string, nowIso: string): Promise<void> {
    await this.db.updateTable('sessions').set({ last_used_at: nowIso }).where('id', '=', id).execute();
  }

  /**
   * Brings a live session's expiry down to `graceIso` (never later than it was), keeping the former
   * expiry to put back if the session is used again before then.
   */
  async markClosing(id: string, graceIso: string, nowIso: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set((eb) => ({
        closing_expires_at: eb.fn.coalesce('closing_expires_at', 'expires_at'),
        expires_at: eb
          .case()
          .when('expires_at', '<', graceIso)
          .then(eb.ref('expires_at'))
          .else(graceIso)
          .end(),
      }))
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', nowIso)
      .execute();
  }

  /** A closing session used again while still live: its former expiry comes back. */
  async reopen(id: string, nowIso: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set((eb) => ({
        expires_at: eb.fn.coalesce('closing_expires_at', 'expires_at'),
        closing_expires_at: null,
        last_used_at: nowIso,
      }))
      .where('id', '=', id)
      .where('closing_expires_at', 'is not', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', nowIso)
      .execute();
  }

  /** Revokes the session of a token and the stream tokens it minted. */
  async revokeByHash(tokenHash: string, nowIso: string): Promise<number> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: nowIso })
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: nowIso })
      .where('parent_session_id', 'in', (eb) =>
        eb.selectFrom('sessions').select('id').where('token_hash', '=', tokenHash),
      )
      .where('revoked_at', 'is', null)
      .execute();
    return Number(result.numUpdatedRows);
  }

  /** Revokes every live session of the given audiences and subjects. */
  async revokeAllForSubjects(
    audiences: SessionAudience[],
    subjectIds: string[],
    nowIso: string,
  ): Promise<number> {
    if (audiences.length === 0 || subjectIds.length === 0) return 0;
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: nowIso })
      .where('audience', 'in', audiences)
      .where('subject_id', 'in', subjectIds)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Marks a live, unused stream token used, if the Ring session that minted it (same subject) is
   * live too and its subject passes `subjectAllowed` (for a Ring member: active, its Ring
   * serviceable), and returns who it is for and that session's id. One conditional statement: it
   * succeeds once, on whichever instance gets there first (a token opens one socket only), and
   * is the handshake's only round trip (the member used to be read by a second query).
   */
  async consumeStream(
    tokenHash: string,
    nowIso: string,
    subjectAllowed: SubjectRule,
  ): Promise<Pick<SessionRow, 'subject_id' | 'parent_session_id'> | undefined> {
    return (await consumeStreamQuery(subjectAllowed)(this.db, tokenHash, nowIso))[0];
  }

  async revokeAllFor(audience: SessionAudience, subjectId: string, nowIso: string): Promise<number> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: nowIso })
      .where('audience', '=', audience)
      .where('subject_id', '=', subjectId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Revokes every live session of a subject except one (the caller's own). */
  async revokeAllForExcept(
    audience: SessionAudience,
    subjectId: string,
    keepSessionId: string,
    nowIso: string,
  ): Promise<number> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: nowIso })
      .where('audience', '=', audience)
      .where('subject_id', '=', subjectId)
      .where('id', '!=', keepSessionId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Deletes stream tokens that can no longer open a socket: used, revoked or expired. */
  async deleteSpentStreamTokens(nowIso: string): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where('audience', '=', 'stream')
      .where((eb) =>
        eb.or([
          eb('used_at', 'is not', null),
          eb('revoked_at', 'is not', null),
          eb('expires_at', '<=', nowIso),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Removes sessions that can no longer be used; keeps the table small. */
  async deleteExpired(nowIso: string, revokedBeforeIso: string): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', nowIso), eb('revoked_at', '<=', revokedBeforeIso)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
