import type { Database } from '../../db/database';
import type { AdminPermissionsTable, AdminsTable } from '../../db/schema';

export type AdminRow = AdminsTable;
export type AdminPermissionRow = AdminPermissionsTable;

export class AdminRepository {
  constructor(private readonly db: Database) {}

  findById(id: string): Promise<AdminRow | undefined> {
    return this.db.selectFrom('admins').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByUsername(username: string): Promise<AdminRow | undefined> {
    return this.db.selectFrom('admins').selectAll().where('username', '=', username).executeTakeFirst();
  }

  findAll(): Promise<AdminRow[]> {
    return this.db.selectFrom('admins').selectAll().orderBy('created_at').execute();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('admins')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(row: AdminRow): Promise<void> {
    await this.db.insertInto('admins').values(row).execute();
  }

  async update(id: string, changes: Partial<Omit<AdminRow, 'id' | 'created_at'>>): Promise<void> {
    await this.db.updateTable('admins').set(changes).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('admins').where('id', '=', id).execute();
  }

  async isGranted(adminId: string, moduleName: string, permissionType: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('admin_permissions')
      .select('granted')
      .where('admin_id', '=', adminId)
      .where('module_name', '=', moduleName)
      .where('permission_type', '=', permissionType)
      .executeTakeFirst();
    return row?.granted === 1;
  }

  findPermissions(adminId: string): Promise<AdminPermissionRow[]> {
    return this.db.selectFrom('admin_permissions').selectAll().where('admin_id', '=', adminId).execute();
  }

  async upsertPermissions(rows: AdminPermissionRow[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const row of rows) {
        await trx
          .insertInto('admin_permissions')
          .values(row)
          .onConflict((oc) =>
            oc
              .columns(['admin_id', 'module_name', 'permission_type'])
              .doUpdateSet({ granted: row.granted, updated_at: row.updated_at }),
          )
          .execute();
      }
    });
  }
}
