import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyRequest, type RouteOptions } from 'fastify';
import type { Redis } from 'ioredis';
import { createAppContext, type AppContext } from './app-context';
import type { AppConfig } from './config';
import type { DatabaseHandle } from './db/database';
import { buildJobs } from './jobs';
import { Scheduler } from './jobs/scheduler';
import { systemClock, type Clock } from './lib/clock';
import { redactUrl } from './lib/redact-url';
import { watchRedisClient } from './lib/redis-client';
import { fastifyTrustProxy } from './lib/trust-proxy';
import { ROUTE_MODULES, buildSocketFeatures } from './modules';
import { registerCompression } from './plugins/compression';
import { registerErrorHandling } from './plugins/errors';
import { registerInputGuard } from './plugins/input-guard';
import { registerSecurityHeaders } from './plugins/security';
import { syncCsrfCookies } from './plugins/auth';
import { registerSpa } from './plugins/spa';
import type { MailTransport, SmtpSettings } from './providers/mail/mail-transport';
import { createRealtimeServer, type RealtimeServer } from './realtime/realtime-server';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    realtimeServer: RealtimeServer;
    scheduler: Scheduler;
  }
}

export interface BuildAppOptions {
  config: AppConfig;
  /** Opened and migrated by the caller; closed with the app. */
  database: DatabaseHandle;
  /** Connected by the caller; closed with the app. */
  redis?: Redis | undefined;
  clock?: Clock;
  /** Start the scheduled jobs (outbox, purges). The server does; most tests drive jobs directly. */
  startJobs?: boolean;
  mailTransportFor?: (settings: SmtpSettings) => MailTransport;
  /** Where the log goes (stdout by default); tests read it to check what is logged. */
  logStream?: { write(line: string): void };
  /** Called for every route as it is registered; tests build their endpoint lists from it. */
  onRoute?: (route: RouteOptions) => void;
}

/** Builds the whole server without listening: HTTP API, SPA, socket.io and jobs. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Verification links, invite codes and stream tokens travel in query strings: never log them.
      serializers: {
        req: (request: FastifyRequest) => ({
          method: request.method,
          url: redactUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    genReqId: () => randomUUID(),
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 1024 * 1024,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });

  const ctx = createAppContext({
    config,
    database: options.database,
    clock: options.clock ?? systemClock,
    logger: app.log,
    redis: options.redis,
    mailTransportFor: options.mailTransportFor,
  });
  app.decorate('ctx', ctx);
  // Without an `error` listener ioredis prints a warning on every failed reconnection; the outage
  // is logged once (then every 30 s) and the features that use Redis degrade (issue 26).
  if (ctx.redis) watchRedisClient(ctx.redis, app.log, 'main');
  if (config.paymentTestMode) {
    app.log.warn(
      'PAYMENT_TEST_MODE actif : le paiement de test est proposé et les abonnements peuvent être activés sans paiement. Ne jamais l’activer sur un serveur public.',
    );
  }

  // Hooks on every request take a callback, not an async function: no promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Request-Id', request.id);
    done(null, payload);
  });
  // API response times feed the console's p50/p95 (static files and sockets are left out).
  const { dbQueries } = ctx.operatorMetrics;
  options.database.observeQueries((ms, failed) =>
    (failed ? dbQueries.error : dbQueries.ok).observe(ms / 1000),
  );
  // Every request feeds the operators' metrics, by route pattern (never the URL: it may hold tokens).
  const { httpRequests, httpDuration } = ctx.operatorMetrics;
  app.addHook('onResponse', (request, reply, done) => {
    if (request.url.startsWith('/api/')) ctx.metrics.record(reply.elapsedTime);
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ route, method: request.method, status: String(reply.statusCode) });
    httpDuration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
    done();
  });

  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  registerErrorHandling(app);
  registerInputGuard(app);
  await registerSecurityHeaders(app);
  await registerCompression(app);
  await app.register(cookie);
  // Each session cookie's CSRF twin follows it (issue 27, L5); logins and logouts set both later.
  app.addHook('onRequest', (request, reply, done) => {
    syncCsrfCookies(request, reply, config.publicUrl);
    done();
  });
  // Uploads: each route sets its own size limit when reading the file.
  await app.register(multipart, { limits: { files: 1, fields: 10, fileSize: 2 * 1024 ** 3 } });

  for (const routes of ROUTE_MODULES) await routes(app, ctx);
  await registerSpa(app, ctx);

  const realtime = createRealtimeServer(app.server, ctx, buildSocketFeatures(ctx));
  app.decorate('realtimeServer', realtime);

  const scheduler = new Scheduler(app.log, (job, outcome) =>
    ctx.operatorMetrics.jobRuns.inc({ job, outcome }),
  );
  app.decorate('scheduler', scheduler);
  if (options.startJobs) scheduler.start(buildJobs(ctx));

  // Open websockets would keep the HTTP server from closing: drop them before it stops listening.
  app.addHook('preClose', async () => {
    ctx.lifecycle.shutdownPhase = 'sockets';
    await realtime.close();
    ctx.lifecycle.shutdownPhase = 'http requests';
  });
  // Then, in reverse order of creation: stop producing work, and close what it used.
  app.addHook('onClose', async () => {
    const phase = (name: string) => (ctx.lifecycle.shutdownPhase = name);
    phase('jobs');
    ctx.mail.stop();
    await scheduler.stop();
    phase('deferred tasks');
    await ctx.deferred.idle();
    phase('mail');
    await ctx.mail.idle();
    phase('database');
    if (ctx.redis) ctx.redis.disconnect();
    ctx.storage.close();
    await ctx.database.close();
    phase('closed');
  });

  return app;
}
