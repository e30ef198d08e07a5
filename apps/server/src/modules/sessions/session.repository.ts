import type { Database } from '../../db/database';
import type { SessionAudience, SessionsTable } from '../../db/schema';

export type SessionRow = SessionsTable;

export class SessionRepository {
  constructor(private readonly db: Database) {}

  async create(row: SessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  async findActiveByHash(
    audience: SessionAudience,
    tokenHash: string,
    nowIso: string,
  ): Promise<SessionRow | undefined> {
    return this.db
      .selectFrom('sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('audience', '=', audience)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', nowIso)
      .executeTakeFirst();
  }

  async touch(id: string, nowIso: string): Promise<void> {
    await this.db.updateTable('sessions').set({ last_used_at: nowIso }).where('id', '=', id).execute();
  }

  async revokeByHash(tokenHash: string, nowIso: string): Promise<number> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: nowIso })
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
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

  /** Removes sessions that can no longer be used; keeps the table small. */
  async deleteExpired(nowIso: string, revokedBeforeIso: string): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', nowIso), eb('revoked_at', '<=', revokedBeforeIso)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
