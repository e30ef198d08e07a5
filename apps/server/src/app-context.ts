import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppConfig } from './config';
import type { Database, DatabaseHandle } from './db/database';
import type { Clock } from './lib/clock';
import { LoginThrottle } from './lib/login-throttle';
import {
  FallbackRateLimiter,
  MemoryRateLimiter,
  RedisRateLimiter,
  type RateLimiter,
} from './lib/rate-limiter';
import { isRedisReady } from './lib/redis-client';
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
import { DiskSpace } from './lib/disk-space';
import { OperatorMetrics } from './modules/metrics/operator-metrics';

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
  /** The Prometheus metrics of this instance (`GET /metrics`). */
  operatorMetrics: OperatorMetrics;
  /** Work that runs after a request has answered (so its duration reveals nothing). */
  deferred: DeferredTasks;
  /** Where Ring files are stored (local disk or S3), for the file space, backups and deletions. */
  storage: StorageProvider;
  /** Start and draining (graceful shutdown) of this process. */
  lifecycle: Lifecycle;
  /** Free space on DATA_DIR against DATA_DIR_MIN_FREE_MB (/readyz, the back-office dashboard). */
  disk: DiskSpace;
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
  const now = () => clock.now().getTime();
  // With Redis, limits are shared by the instances; while Redis is down, each counts its own.
  const rateLimiter = redis
    ? new FallbackRateLimiter(
        new RedisRateLimiter(redis, `${config.redisKeyPrefix}rl:`, now),
        new MemoryRateLimiter(now),
        () => isRedisReady(redis),
        (degraded, error) =>
          degraded
            ? logger.warn(
                { err: error },
                'Redis indisponible : limites de débit comptées par instance jusqu’à son retour',
              )
            : logger.info('Redis de retour : limites de débit de nouveau partagées'),
      )
    : new MemoryRateLimiter(now);
  const settings = new SettingsService(new SettingsRepository(db), clock);
  const systemLog = new SystemLogService(new SystemLogRepository(db), clock, logger, () =>
    settings.isFlagOn('system', 'logging_enabled'),
  );
  const operatorMetrics = new OperatorMetrics();
  const mail = new MailService({
    onOutcome: (outcome) => operatorMetrics.mails.inc({ outcome }),
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
    operatorMetrics,
    deferred: new DeferredTasks(logger),
    storage: createStorageProvider(config),
    lifecycle: new Lifecycle(),
    disk: new DiskSpace(config.dataDir, config.diskMinFreeBytes),
  };
}
