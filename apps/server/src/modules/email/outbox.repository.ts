import type { Database } from '../../db/database';
import type { EmailOutboxTable } from '../../db/schema';

export type OutboxRow = EmailOutboxTable;

export class OutboxRepository {
  constructor(private readonly db: Database) {}

  async insert(row: OutboxRow): Promise<void> {
    await this.db.insertInto('email_outbox').values(row).execute();
  }

  /** Ids of entries due for a send attempt (pending, or stuck in sending past their lock). */
  async findDueIds(nowIso: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('email_outbox')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', nowIso)]),
          eb.and([eb('status', '=', 'sending'), eb('locked_until', '<', nowIso)]),
        ]),
      )
      .orderBy('next_attempt_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Claims one entry for this worker: the conditional update succeeds for exactly one instance,
   * so a mail is never sent twice by two servers.
   */
  async claim(id: string, nowIso: string, lockUntilIso: string): Promise<OutboxRow | undefined> {
    const result = await this.db
      .updateTable('email_outbox')
      .set({ status: 'sending', locked_until: lockUntilIso })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', nowIso)]),
          eb.and([eb('status', '=', 'sending'), eb('locked_until', '<', nowIso)]),
        ]),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    return this.db.selectFrom('email_outbox').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Blanks the bodies of mails already delivered (sent or logged): their links carry tokens.
   * Recipient, subject, template, status and times stay for the record.
   */
  async blankDeliveredBodies(): Promise<number> {
    const result = await this.db
      .updateTable('email_outbox')
      .set({ body_html: '', body_text: '' })
      .where('status', 'in', ['sent', 'logged'])
      .where((eb) => eb.or([eb('body_html', '!=', ''), eb('body_text', '!=', '')]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async update(id: string, changes: Partial<OutboxRow>): Promise<void> {
    await this.db.updateTable('email_outbox').set(changes).where('id', '=', id).execute();
  }
}
