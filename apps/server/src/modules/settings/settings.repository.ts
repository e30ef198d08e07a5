import type { Database } from '../../db/database';
import type { SettingsTable } from '../../db/schema';

export type SettingRow = SettingsTable;

export class SettingsRepository {
  constructor(private readonly db: Database) {}

  async findAll(category?: string): Promise<SettingRow[]> {
    let query = this.db.selectFrom('settings').selectAll();
    if (category) query = query.where('category', '=', category);
    return query.orderBy('category').orderBy('key').execute();
  }

  async findValue(category: string, key: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('settings')
      .select('setting_value')
      .where('category', '=', category)
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.setting_value;
  }

  async upsertMany(rows: SettingRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const row of rows) {
        await trx
          .insertInto('settings')
          .values(row)
          .onConflict((oc) =>
            oc
              .columns(['category', 'key'])
              .doUpdateSet({ setting_value: row.setting_value, updated_at: row.updated_at }),
          )
          .execute();
      }
    });
  }

  /** Inserts defaults that are missing; never overwrites an existing value. */
  async insertMissing(rows: SettingRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('settings')
      .values(rows)
      .onConflict((oc) => oc.columns(['category', 'key']).doNothing())
      .execute();
  }
}
