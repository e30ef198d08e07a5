import { TECHNICAL_LOG_PREFIX } from '@securering/contract';
import { sql } from 'kysely';
import type { Database } from '../../db/database';
import type { SystemLogsTable } from '../../db/schema';
import { containsIgnoringCase } from '../../db/text-search';

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

/** LIKE pattern of the request start/end entries (the prefix holds no LIKE wildcard). */
const TECHNICAL_LOG_PATTERN = `${TECHNICAL_LOG_PREFIX}%`;

export class SystemLogRepository {
  constructor(private readonly db: Database) {}

  async insert(row: SystemLogRow): Promise<void> {
    await this.db.insertInto('system_logs').values(row).execute();
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
    if (filter.hideTechnical) query = query.where('system_logs.message', 'not like', TECHNICAL_LOG_PATTERN);
    if (filter.search) {
      query = query.where(containsIgnoringCase(sql.ref('system_logs.message'), filter.search));
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
}
