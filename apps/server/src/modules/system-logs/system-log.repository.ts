import { sql } from 'kysely';
import type { Database } from '../../db/database';
import type { SystemLogsTable } from '../../db/schema';

type Level = SystemLogsTable['level'];

export type SystemLogRow = SystemLogsTable;

export interface LogFilter {
  category?: string | undefined;
  level?: Level | undefined;
  /** Hides the request start/end entries of the api category. */
  hideTechnical?: boolean | undefined;
}

export interface LogPageFilter extends LogFilter {
  /** Case-insensitive "message contains". */
  search?: string | undefined;
}

/** A log row with who its user_id names: an admin's username or a customer's email. */
export type SystemLogRowWithUser = SystemLogRow & { user_label: string | null };

/** Escapes LIKE wildcards so a search for "50%" matches the text, not a pattern. */
function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export class SystemLogRepository {
  constructor(private readonly db: Database) {}

  async insert(row: SystemLogRow): Promise<void> {
    await this.db.insertInto('system_logs').values(row).execute();
  }

  async find(
    filter: LogFilter,
    limit: number,
    offset: number,
  ): Promise<{ logs: SystemLogRow[]; total: number }> {
    let query = this.db.selectFrom('system_logs');
    if (filter.category) query = query.where('category', '=', filter.category);
    if (filter.level) query = query.where('level', '=', filter.level);
    if (filter.hideTechnical) query = query.where('message', 'not like', 'Requête %');
    const [logs, count] = await Promise.all([
      query
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { logs, total: Number(count.n) };
  }

  /** One page for the back office, newest first, with the user each entry names. */
  async findPage(
    filter: LogPageFilter,
    limit: number,
    offset: number,
  ): Promise<{ logs: SystemLogRowWithUser[]; total: number }> {
    let query = this.db.selectFrom('system_logs');
    if (filter.category) query = query.where('system_logs.category', '=', filter.category);
    if (filter.level) query = query.where('system_logs.level', '=', filter.level);
    if (filter.hideTechnical) query = query.where('system_logs.message', 'not like', 'Requête %');
    if (filter.search) {
      const pattern = likeContains(filter.search);
      query = query.where(sql<boolean>`lower(${sql.ref('system_logs.message')}) like ${pattern} escape '\\'`);
    }
    const [rows, count] = await Promise.all([
      query
        .leftJoin('admins', 'admins.id', 'system_logs.user_id')
        .leftJoin('customers', 'customers.id', 'system_logs.user_id')
        .selectAll('system_logs')
        .select(['admins.username as admin_username', 'customers.email as customer_email'])
        .orderBy('system_logs.created_at', 'desc')
        .orderBy('system_logs.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const logs = rows.map(({ admin_username, customer_email, ...row }) => ({
      ...row,
      user_label: admin_username ?? customer_email ?? null,
    }));
    return { logs, total: Number(count.n) };
  }

  async deleteWhere(filter: {
    category?: string | undefined;
    level?: Level | undefined;
    before?: string | undefined;
  }): Promise<number> {
    let query = this.db.deleteFrom('system_logs');
    if (filter.category) query = query.where('category', '=', filter.category);
    if (filter.level) query = query.where('level', '=', filter.level);
    if (filter.before) query = query.where('created_at', '<', filter.before);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async countSince(
    sinceIso: string,
    filter: { levels?: Level[]; category?: string; message?: string },
  ): Promise<number> {
    let query = this.db.selectFrom('system_logs').where('created_at', '>=', sinceIso);
    if (filter.levels?.length) query = query.where('level', 'in', filter.levels);
    if (filter.category) query = query.where('category', '=', filter.category);
    if (filter.message) query = query.where('message', '=', filter.message);
    const row = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
