import type { Database } from '../../db/database';
import type { EmailTemplatesTable } from '../../db/schema';

export type EmailTemplateRow = EmailTemplatesTable;

export class EmailTemplateRepository {
  constructor(private readonly db: Database) {}

  findAll(): Promise<EmailTemplateRow[]> {
    return this.db.selectFrom('email_templates').selectAll().orderBy('name').execute();
  }

  findByName(name: string): Promise<EmailTemplateRow | undefined> {
    return this.db.selectFrom('email_templates').selectAll().where('name', '=', name).executeTakeFirst();
  }

  findById(id: string): Promise<EmailTemplateRow | undefined> {
    return this.db.selectFrom('email_templates').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertMissing(rows: EmailTemplateRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('email_templates')
      .values(rows)
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }

  async insert(row: EmailTemplateRow): Promise<void> {
    await this.db.insertInto('email_templates').values(row).execute();
  }

  async update(id: string, changes: Partial<Omit<EmailTemplateRow, 'id' | 'created_at'>>): Promise<void> {
    await this.db.updateTable('email_templates').set(changes).where('id', '=', id).execute();
  }
}
