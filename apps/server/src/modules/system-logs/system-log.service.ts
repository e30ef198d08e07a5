import type { FastifyBaseLogger } from 'fastify';
import type { LogCategory, LogLevel } from '@securering/contract';
import type { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import type { RequestMeta } from '../sessions/session.service';
import type { SystemLogRepository } from './system-log.repository';

export interface LogEvent {
  level: LogLevel;
  category: LogCategory;
  message: string;
  details?: unknown;
  ip?: string | null | undefined;
  userAgent?: string | null | undefined;
  userId?: string | null | undefined;
}

const MAX_DETAILS_CHARS = 8000;

/** Serialises details to JSON text, clipped so one entry can never bloat the table. */
export function serialiseDetails(details: unknown): string | null {
  if (details === undefined || details === null || details === '') return null;
  let text: string;
  try {
    text = typeof details === 'string' ? details : JSON.stringify(details);
  } catch {
    text = String(details);
  }
  return text.length > MAX_DETAILS_CHARS ? `${text.slice(0, MAX_DETAILS_CHARS)}…` : text;
}

/**
 * The system log table written for auth, payment, email, admin and system events. Writing never
 * throws: a failed write is reported to the process log instead.
 */
export class SystemLogService {
  constructor(
    private readonly repo: SystemLogRepository,
    private readonly clock: Clock,
    private readonly logger: FastifyBaseLogger,
    /** When the admin switch turns logging off, info and warning entries are skipped. */
    private readonly isLoggingEnabled: () => Promise<boolean>,
  ) {}

  /**
   * `audit` entries ignore the logging switch: they are the record of what admins did, and an
   * admin who could switch logging off must not be able to act unrecorded.
   */
  async write(event: LogEvent, { audit = false }: { audit?: boolean } = {}): Promise<void> {
    try {
      if (
        !audit &&
        (event.level === 'info' || event.level === 'warning') &&
        !(await this.isLoggingEnabled())
      ) {
        return;
      }
      await this.repo.insert({
        id: newId(),
        level: event.level,
        category: event.category,
        message: event.message.slice(0, 1000),
        details: serialiseDetails(event.details),
        ip_address: event.ip?.slice(0, 100) ?? null,
        user_agent: event.userAgent?.slice(0, 500) ?? null,
        user_id: event.userId ?? null,
        created_at: this.clock.now().toISOString(),
      });
    } catch (error) {
      this.logger.error(
        { err: error, event: { category: event.category, message: event.message } },
        'system log write failed',
      );
    }
  }

  info(category: LogCategory, message: string, extra: Omit<LogEvent, 'level' | 'category' | 'message'> = {}) {
    return this.write({ level: 'info', category, message, ...extra });
  }
  warning(
    category: LogCategory,
    message: string,
    extra: Omit<LogEvent, 'level' | 'category' | 'message'> = {},
  ) {
    return this.write({ level: 'warning', category, message, ...extra });
  }
  error(
    category: LogCategory,
    message: string,
    extra: Omit<LogEvent, 'level' | 'category' | 'message'> = {},
  ) {
    return this.write({ level: 'error', category, message, ...extra });
  }

  /** Records an admin's write (or export) with who, from where and what; always kept. */
  adminAction(
    actor: { id: string },
    meta: RequestMeta,
    message: string,
    details: Record<string, unknown>,
    level: LogLevel = 'info',
  ) {
    return this.write(
      {
        level,
        category: 'admin',
        message,
        details,
        userId: actor.id,
        ip: meta.ip,
        userAgent: meta.userAgent,
      },
      { audit: true },
    );
  }
}
