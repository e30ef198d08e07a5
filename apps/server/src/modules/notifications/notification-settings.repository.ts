import type { Database } from '../../db/database';
import type { NotificationSettingsTable } from '../../db/schema';

export type NotificationSettingsRow = NotificationSettingsTable;
export type NotificationOwnerType = NotificationSettingsRow['owner_type'];

/** One row of notification preferences per customer or Ring member. */
export class NotificationSettingsRepository {
  constructor(private readonly db: Database) {}

  find(ownerType: NotificationOwnerType, ownerId: string): Promise<NotificationSettingsRow | undefined> {
    return this.db
      .selectFrom('notification_settings')
      .selectAll()
      .where('owner_type', '=', ownerType)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
  }

  /** Inserts the owner's row, or replaces its settings when it exists (`id` then stays). */
  async upsert(row: NotificationSettingsRow): Promise<void> {
    await this.db
      .insertInto('notification_settings')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['owner_type', 'owner_id'])
          .doUpdateSet({ settings: row.settings, updated_at: row.updated_at }),
      )
      .execute();
  }
}
