import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppConfig } from './config';
import type { Database, DatabaseHandle } from './db/database';
import type { Clock } from './lib/clock';
import { LoginThrottle } from './lib/login-throttle';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './lib/rate-limiter';
import { AdminRepository } from './modules/admins/admin.repository';
import { EmailTemplateRepository } from './modules/email/email-template.repository';
import { MailService } from './modules/email/mail.service';
import { OutboxRepository } from './modules/email/outbox.repository';
import { SessionRepository } from './modules/sessions/session.repository';
import { SessionService } from './modules/sessions/session.service';
import { SettingsRepository } from './modules/settings/settings.repository';
import { SettingsService } from './modules/settings/settings.service';
import { SystemLogRepository } from './modules/system-logs/system-log.repository';
import { SystemLogService } from './modules/system-logs/system-log.service';
import type { MailTransport, SmtpSettings } from './providers/mail/mail-transport';
import { createStorageProvider } from './providers/storage/create-storage';
import type { StorageProvider } from './providers/storage/storage-provider';
import { RealtimeHub } from './realtime/realtime-hub';
import { RequestMetrics } from './lib/request-metrics';
import { DeferredTasks } from './lib/deferred-tasks';
import { Lifecycle } from './lib/lifecycle';

/**
 * The cross-cutting services every module may use. Feature services are built by their own
 * module from this context; nothing feature-specific belongs here.
 */
export interface AppContext {
  config: AppConfig;
  database: DatabaseHandle;
  db: Database;
  clock: Clock;
  logger: FastifyBaseLogger;
  redis: Redis | undefined;
  rateLimiter: RateLimiter;
  loginThrottle: LoginThrottle;
  sessions: SessionService;
  settings: SettingsService;
  systemLog: SystemLogService;
  mail: MailService;
  admins: AdminRepository;
  realtime: RealtimeHub;
  /** Response times of this process's recent requests. */
  metrics: RequestMetrics;
  /** Work that runs after a request has answered (so its duration reveals nothing). */
  deferred: DeferredTasks;
  /** Where Ring files are stored (local disk or S3), for the file space, backups and deletions. */
  storage: StorageProvider;
  /** Start and draining (graceful shutdown) of this process. */
  lifecycle: Lifecycle;
}

export interface ContextOptions {
  config: AppConfig;
  database: DatabaseHandle;
  clock: Clock;
  logger: FastifyBaseLogger;
  redis?: Redis | undefined;
  mailTransportFor?: ((settings: SmtpSettings) => MailTransport) | undefined;
}

export function createAppContext(options: ContextOptions): AppContext {
  const { config, database, clock, logger, redis } = options;
  const db = database.db;
  const rateLimiter = redis
    ? new RedisRateLimiter(redis, `${config.redisKeyPrefix}rl:`, () => clock.now().getTime())
    : new MemoryRateLimiter(() => clock.now().getTime());
  const settings = new SettingsService(new SettingsRepository(db), clock);
  const systemLog = new SystemLogService(new SystemLogRepository(db), clock, logger, () =>
    settings.isFlagOn('system', 'logging_enabled'),
  );
  const mail = new MailService({
    templates: new EmailTemplateRepository(db),
    outbox: new OutboxRepository(db),
    settings,
    clock,
    logger,
    systemLog,
    publicUrl: config.publicUrl,
    ...(options.mailTransportFor ? { transportFor: options.mailTransportFor } : {}),
  });
  return {
    config,
    database,
    db,
    clock,
    logger,
    redis,
    rateLimiter,
    loginThrottle: new LoginThrottle(
      rateLimiter,
      config.rateLimits.loginFailures,
      config.rateLimits.loginWindowMs,
    ),
    sessions: new SessionService(new SessionRepository(db), clock),
    settings,
    systemLog,
    mail,
    admins: new AdminRepository(db),
    realtime: new RealtimeHub(),
    metrics: new RequestMetrics(),
    deferred: new DeferredTasks(logger),
    storage: createStorageProvider(config),
    lifecycle: new Lifecycle(),
  };
}
