import type { Database } from '../../db/database';
import type { ContactMessagesTable } from '../../db/schema';

export class ContactRepository {
  constructor(private readonly db: Database) {}

  async insert(row: ContactMessagesTable): Promise<void> {
    await this.db.insertInto('contact_messages').values(row).execute();
  }
}
