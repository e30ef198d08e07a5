import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app';
import type { AppContext } from '../src/app-context';
import { loadConfig, type AppConfig, type RateLimitConfig } from '../src/config';
import type { DatabaseHandle } from '../src/db/database';
import { systemClock, type Clock } from '../src/lib/clock';
import { createRedisClient } from '../src/lib/redis-client';
import type { MailTransport, SmtpSettings } from '../src/providers/mail/mail-transport';
import { seedDatabase, type SeedResult } from '../src/seed/seed';
import { recordQueuedMails } from './queued-mails';
import { createTestDatabase, type TestDatabase } from './test-database';

export const TEST_ADMIN = {
  username: 'root',
  password: 'Root-Password-1',
  email: 'root@example.com',
} as const;

export interface TestAppOptions {
  clock?: Clock;
  config?: TestConfigOverrides;
  mailTransportFor?: (settings: SmtpSettings) => MailTransport;
  /** Reuse a database (a second instance); otherwise a fresh one is created and dropped on close. */
  database?: TestDatabase;
  /** Use Redis when TEST_REDIS_URL is set (the PostgreSQL project sets it). Default true. */
  redis?: boolean;
  /** A Redis of the test's own (startOwnRedis, redis-server.ts) instead of TEST_REDIS_URL. */
  redisUrl?: string;
  redisKeyPrefix?: string;
  /** Lets a test add routes before the app is ready (e.g. one that throws). */
  beforeReady?: (app: FastifyInstance) => void;
  /** Receives the app's log lines (set config.logLevel to see them). */
  logStream?: { write(line: string): void };
}

export interface TestApp {
  app: FastifyInstance;
  /** Every route the app registered (method and URL), in registration order. */
  routes: Array<{ method: string; url: string }>;
  ctx: AppContext;
  database: TestDatabase;
  seed: SeedResult;
  close(): Promise<void>;
}

/** Config fields a test sets; rate limits it leaves out keep their defaults. */
export type TestConfigOverrides = Partial<Omit<AppConfig, 'rateLimits'>> & {
  rateLimits?: Partial<RateLimitConfig>;
};

export function testConfig(overrides: TestConfigOverrides = {}): AppConfig {
  const base = loadConfig({
    NODE_ENV: 'test',
    PUBLIC_URL: 'http://127.0.0.1:9999',
    ADMIN_USERNAME: TEST_ADMIN.username,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    ADMIN_EMAIL: TEST_ADMIN.email,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  return { ...base, ...overrides, rateLimits: { ...base.rateLimits, ...overrides.rateLimits } };
}

/** The real app on a real, fresh, migrated and seeded database. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownsDatabase = !options.database;
  const database = options.database ?? (await createTestDatabase());
  const handle: DatabaseHandle = ownsDatabase ? database.handle : database.open();
  const redisUrl = options.redisUrl ?? (options.redis === false ? undefined : process.env.TEST_REDIS_URL);
  // The server's own client options (timeouts, retries), so outages behave as in production.
  const redis = redisUrl ? createRedisClient(redisUrl) : undefined;
  const config = testConfig({
    dataDir: database.dataDir,
    redisUrl,
    redisKeyPrefix: options.redisKeyPrefix ?? `test-${randomBytes(4).toString('hex')}:`,
    ...options.config,
  });
  const routes: TestApp['routes'] = [];
  const app = await buildApp({
    onRoute: (route) => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url });
    },
    config,
    database: handle,
    redis,
    clock: options.clock ?? systemClock,
    ...(options.mailTransportFor ? { mailTransportFor: options.mailTransportFor } : {}),
    ...(options.logStream ? { logStream: options.logStream } : {}),
  });
  recordQueuedMails(app.ctx);
  options.beforeReady?.(app);
  const seed = await seedDatabase(app.ctx);
  await app.ready();
  return {
    app,
    routes,
    ctx: app.ctx,
    database,
    seed,
    async close() {
      await app.close();
      if (ownsDatabase) await database.drop();
    },
  };
}
