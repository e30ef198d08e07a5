import {
  LOG_MESSAGES,
  logsDeletedMessage,
  logsPurgedMessage,
  type TAdminLogEntry,
  type ZAdminLogsQuery,
} from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { DAY_MS } from '../../lib/clock';
import type { AdminRow } from '../admins/admin.repository';
import type { RequestMeta } from '../sessions/session.service';
import { SystemLogRepository, type SystemLogRowWithUser } from './system-log.repository';

/** Stored details are JSON text; old or clipped entries may be plain text. */
export function parseDetails(details: string | null): unknown {
  if (details === null || details === '') return null;
  try {
    return JSON.parse(details) as unknown;
  } catch {
    return details;
  }
}

function toEntry(row: SystemLogRowWithUser): TAdminLogEntry {
  return {
    id: row.id,
    level: row.level,
    category: row.category,
    message: row.message,
    details: parseDetails(row.details),
    created_at: row.created_at,
    ip_address: row.ip_address,
    user_id: row.user_id,
    user_agent: row.user_agent,
    user_label: row.user_label,
  };
}

/**
 * The Logs tab: reading pages of the system log, the logging switch, clearing and purging.
 * Every write is audited after it happens, so the audit line of a deletion survives it.
 */
export class AdminLogsService {
  private readonly repo: SystemLogRepository;

  constructor(private readonly ctx: AppContext) {
    this.repo = new SystemLogRepository(ctx.db);
  }

  loggingEnabled(): Promise<boolean> {
    return this.ctx.settings.isFlagOn('system', 'logging_enabled');
  }

  async list(query: z.output<typeof ZAdminLogsQuery>) {
    const [page, loggingEnabled] = await Promise.all([
      this.repo.findPage(
        {
          category: query.category,
          level: query.level,
          hideTechnical: query.hide_technical,
          search: query.search,
        },
        query.limit,
        query.offset,
      ),
      this.loggingEnabled(),
    ]);
    return { logs: page.logs.map(toEntry), total: page.total, logging_enabled: loggingEnabled };
  }

  /** The switch silences info and warning entries; admin audit entries are kept either way. */
  async setLogging(actor: AdminRow, enabled: boolean, meta: RequestMeta): Promise<string> {
    const message = enabled ? LOG_MESSAGES.loggingEnabled : LOG_MESSAGES.loggingDisabled;
    await this.ctx.settings.save('system', { logging_enabled: enabled ? '1' : '0' });
    await this.ctx.systemLog.adminAction(actor, meta, message, { logging_enabled: enabled });
    return message;
  }

  async clear(
    actor: AdminRow,
    filter: { category: string; level?: TAdminLogEntry['level'] | undefined },
    meta: RequestMeta,
  ): Promise<{ deleted: number; message: string }> {
    const category = filter.category === 'all' ? undefined : filter.category;
    const deleted = await this.repo.deleteWhere({ category, level: filter.level });
    await this.ctx.systemLog.adminAction(actor, meta, 'Logs supprimés', {
      category: filter.category,
      ...(filter.level ? { level: filter.level } : {}),
      deleted,
    });
    return { deleted, message: logsDeletedMessage(deleted) };
  }

  /** Deletes entries strictly older than now - days; an entry exactly that old is kept. */
  async purge(
    actor: AdminRow,
    days: number,
    meta: RequestMeta,
  ): Promise<{ deleted: number; message: string }> {
    const before = new Date(this.ctx.clock.now().getTime() - days * DAY_MS).toISOString();
    const deleted = await this.repo.deleteWhere({ before });
    await this.ctx.systemLog.adminAction(actor, meta, 'Logs anciens purgés', { days, before, deleted });
    return { deleted, message: logsPurgedMessage(deleted, days) };
  }
}
