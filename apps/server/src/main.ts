import { sql } from 'kysely';
import { buildApp } from './app';
import { loadConfig } from './config';
import { openDatabase } from './db/database';
import { migrateToLatest } from './db/migrate';
import { checkPlannerStatistics } from './db/planner-statistics';
import { DataDirError, prepareDataDir } from './lib/data-dir';
import { processErrorOutcome, unavailableDependency } from './lib/dependency-errors';
import { createRedisClient } from './lib/redis-client';
import { SqliteInUseError, acquireSqliteLock } from './lib/sqlite-lock';
import { storagePaths } from './lib/storage-paths';
import { seedDatabase } from './seed/seed';

/**
 * Connections the kernel may hold for us before we accept them (Node's default is 511; Linux caps
 * it at net.core.somaxconn). When an instance restarts, its pages all reconnect within seconds: past
 * the queue the kernel drops their handshakes, and each dropped one waits for a TCP retransmission
 * (1 s, then 2 s, 4 s…) however idle the process is by then.
 */
const LISTEN_BACKLOG = 4096;

/** config → database → migrate → seed → listen, then graceful shutdown on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  // Before the lock, the database, uploads, backups or Ring files: a fresh clone has no ./data.
  prepareDataDir(config.dataDir);
  // SQLite serves one instance: a second process on the same file is refused (docs/OPERATIONS.md).
  if (!config.databaseUrl) acquireSqliteLock(storagePaths.sqliteFile(config));
  const databaseOptions = {
    databaseUrl: config.databaseUrl,
    sqlitePath: storagePaths.sqliteFile(config),
    pgPoolSize: config.cluster.pgPoolSize,
  };
  // Migrations may take long on big tables: on PostgreSQL they run on a connection of their own,
  // without the statement timeout that bounds every request's queries.
  if (config.databaseUrl) {
    const migrations = openDatabase({ ...databaseOptions, pgPoolSize: 1, pgStatementTimeoutMs: 0 });
    try {
      await migrateToLatest(migrations.db);
    } finally {
      await migrations.close();
    }
  }
  const database = openDatabase({
    ...databaseOptions,
    pgStatementTimeoutMs: config.cluster.pgStatementTimeoutMs,
  });
  if (!config.databaseUrl) await migrateToLatest(database.db);

  const redis = config.redisUrl ? createRedisClient(config.redisUrl) : undefined;
  const app = await buildApp({ config, database, redis, startJobs: true });
  handleProcessErrors(app.log);

  // Two instances starting together must not seed twice: serialise on a PostgreSQL advisory lock.
  const seed = await (database.dialect === 'postgres'
    ? database.db.connection().execute(async (conn) => {
        // Waiting for the other instance's seeding may take longer than a request's statement.
        await sql`set statement_timeout = 0`.execute(conn);
        await sql`select pg_advisory_lock(7243001)`.execute(conn);
        try {
          return await seedDatabase(app.ctx);
        } finally {
          await sql`select pg_advisory_unlock(7243001)`.execute(conn);
          await sql`reset statement_timeout`.execute(conn);
        }
      })
    : seedDatabase(app.ctx));

  if (seed.generatedAdminPassword) {
    const line = '='.repeat(72);
    process.stdout.write(
      `\n${line}\n  Super administrateur créé : ${config.admin.username}\n` +
        `  Mot de passe (affiché une seule fois) : ${seed.generatedAdminPassword}\n${line}\n\n`,
    );
  }

  // Without SMTP, mails and their links (invitation codes) go to this log: say so at every start.
  const mailWarning = await app.ctx.mail.loggingWarning();
  if (mailWarning) app.log.warn(mailWarning);

  await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
  app.log.info(
    {
      url: config.publicUrl,
      instance: config.cluster.instanceName,
      database: database.dialect,
      redis: Boolean(redis),
      dataDir: config.dataDir,
    },
    `SecureRing prêt sur ${config.publicUrl}`,
  );
  if (database.dialect === 'postgres') {
    const warning = await checkPlannerStatistics(database.db).catch(() => undefined);
    if (warning) app.log.warn(warning);
  }

  let closing = false;
  /** How long requests in flight may take to finish once the drain is over. */
  const SHUTDOWN_REQUESTS_GRACE_MS = 5_000;
  /**
   * Graceful shutdown: /readyz answers 503 at once (the load balancer stops sending new work),
   * after SHUTDOWN_DRAIN_MS the server stops accepting and closes every socket's transport (clients
   * reconnect through the balancer to another instance and catch up by sequence number), requests
   * in flight finish, then jobs, Redis and the database close.
   */
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.ctx.lifecycle.startDraining();
    const drainMs = config.cluster.shutdownDrainMs;
    app.log.info({ signal, drainMs }, 'arrêt en cours');
    const force = setTimeout(() => {
      app.log.error({ phase: app.ctx.lifecycle.shutdownPhase }, 'arrêt forcé après 15 s');
      process.exit(1);
    }, drainMs + 15_000);
    force.unref();
    // Requests in flight get a bounded time to finish: past it, their connections are cut (a
    // client retries elsewhere; sends are idempotent by client message id). Keep-alive connections
    // from a load balancer would otherwise keep the HTTP server from closing.
    const cut = setTimeout(() => {
      app.log.warn({ phase: app.ctx.lifecycle.shutdownPhase }, 'arrêt : connexions HTTP restantes coupées');
      app.server.closeAllConnections();
    }, drainMs + SHUTDOWN_REQUESTS_GRACE_MS);
    cut.unref();
    new Promise((resolve) => setTimeout(resolve, drainMs))
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'arrêt en erreur');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/**
 * The last line of defence (issue 26): an error nobody handled is logged with its stack. A
 * dependency's failure (the database, Redis) never ends the process — it comes back and clients
 * retry; another rejected promise is logged and left; another uncaught exception left some state
 * half-updated, so the process exits 1 and its supervisor starts a clean one.
 */
function handleProcessErrors(log: {
  error(object: object, message: string): void;
  warn(object: object, message: string): void;
}): void {
  const handle = (kind: 'rejection' | 'exception') => (error: unknown) => {
    const outcome = processErrorOutcome(error, kind);
    const dependency = unavailableDependency(error);
    const message = kind === 'rejection' ? 'promesse rejetée sans traitement' : 'exception non interceptée';
    if (outcome === 'continue') {
      (dependency ? log.warn : log.error).call(
        log,
        { err: error, dependency },
        `${message} : le processus continue`,
      );
      return;
    }
    log.error({ err: error }, `${message} : arrêt du processus`);
    process.exitCode = 1;
    // Let the log line reach its destination first.
    setTimeout(() => process.exit(1), 100).unref();
  };
  process.on('unhandledRejection', handle('rejection'));
  process.on('uncaughtException', handle('exception'));
}

main().catch((error: unknown) => {
  // Expected refusals (an unusable DATA_DIR, a SQLite file already served) are one line for the
  // operator; anything else keeps its stack for a bug report.
  const expected = error instanceof DataDirError || error instanceof SqliteInUseError;
  const text =
    error instanceof Error ? (expected ? error.message : (error.stack ?? error.message)) : String(error);
  process.stderr.write(`Échec du démarrage : ${text}\n`);
  process.exit(1);
});
