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

  async deleteWhere(filter: { category?: string | undefined; before?: string | undefined }): Promise<number> {
    let query = this.db.deleteFrom('system_logs');
    if (filter.category) query = query.where('category', '=', filter.category);
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
