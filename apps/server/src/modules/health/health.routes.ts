import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';

/** A dependency that does not answer within this time counts as down. */
export const READINESS_TIMEOUT_MS = 2000;

export type ReadinessCheck = 'database' | 'redis' | 'storage';

/** Each dependency's answer: 'ok' or why it failed (never a secret: error names and codes only). */
export type ReadinessReport = Partial<Record<ReadinessCheck, string>>;

/** How a check ended: `failed` makes this instance unfit, `degraded` only reports. */
export type CheckState = 'ok' | 'degraded' | 'failed';

/**
 * One named readiness check. `scope` says what its failure means (issue 26, ADR 0003):
 * - `instance`: something only this instance has (its database pool, its disk): the instance is
 *   unfit and /readyz answers 503, so the load balancer sends its traffic to the others;
 * - `shared`: a dependency every instance shares (Redis): all of them see it fail at once, and
 *   taking them all out would take the site down; the instance reports `degraded` and stays in.
 */
export interface ReadinessCheckDefinition {
  name: ReadinessCheck;
  scope: 'instance' | 'shared';
  probe(): Promise<unknown>;
}

/** A check's outcome: its state, and 'ok' or why it did not pass. */
export interface CheckResult {
  name: ReadinessCheck;
  state: CheckState;
  detail: string;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const reason = (error: unknown): string => {
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.name === 'string' && e.name !== 'Error') return e.name;
  return typeof e?.message === 'string' ? e.message.slice(0, 80) : 'error';
};

/**
 * The file storage answers and DATA_DIR (SQLite, uploads, backups, local Ring files, tus parts)
 * has more than DATA_DIR_MIN_FREE_MB free: a full disk makes this instance unfit (`disk full`)
 * before writes start failing half-way.
 */
async function checkStorage(ctx: Pick<AppContext, 'storage' | 'disk'>): Promise<void> {
  const [disk] = await Promise.all([ctx.disk.status(), ctx.storage.checkReachable()]);
  if (disk.state === 'full') throw new Error('disk full');
}

/** The checks of this instance: its database pool and its storage, and Redis when configured. */
export function readinessChecks(ctx: AppContext): ReadinessCheckDefinition[] {
  const checks: ReadinessCheckDefinition[] = [
    { name: 'database', scope: 'instance', probe: () => ctx.database.ping() },
    { name: 'storage', scope: 'instance', probe: () => checkStorage(ctx) },
  ];
  const redis = ctx.redis;
  if (redis)
    checks.push({
      name: 'redis',
      scope: 'shared',
      probe: async () => {
        // ioredis queues commands while reconnecting: a closed link must fail now, not later.
        if (redis.status !== 'ready') throw new Error(`redis ${redis.status}`);
        await redis.ping();
      },
    });
  return checks;
}

/** Runs the checks in parallel, each bounded by READINESS_TIMEOUT_MS. */
export async function runReadinessChecks(checks: ReadinessCheckDefinition[]): Promise<CheckResult[]> {
  return Promise.all(
    checks.map(async ({ name, scope, probe }): Promise<CheckResult> => {
      try {
        await withTimeout(probe(), READINESS_TIMEOUT_MS);
        return { name, state: 'ok', detail: 'ok' };
      } catch (error) {
        return { name, state: scope === 'instance' ? 'failed' : 'degraded', detail: reason(error) };
      }
    }),
  );
}

/** What /readyz answers for a set of results: 503 only when a check of this instance failed. */
export function readinessAnswer(results: CheckResult[]): {
  httpStatus: 200 | 503;
  body: {
    status: 'ok' | 'degraded' | 'error';
    checks: ReadinessReport;
    failed?: string[];
    degraded?: string[];
  };
} {
  const checks: ReadinessReport = {};
  for (const r of results) checks[r.name] = r.detail;
  const failed = results.filter((r) => r.state === 'failed').map((r) => r.name);
  const degraded = results.filter((r) => r.state === 'degraded').map((r) => r.name);
  if (failed.length > 0)
    return {
      httpStatus: 503,
      body: { status: 'error', failed, checks, ...(degraded.length > 0 ? { degraded } : {}) },
    };
  if (degraded.length > 0) return { httpStatus: 200, body: { status: 'degraded', degraded, checks } };
  return { httpStatus: 200, body: { status: 'ok', checks } };
}

/** Asks the database, Redis (when configured) and the file storage, in parallel. */
export async function checkReadiness(ctx: AppContext): Promise<{ ok: boolean; checks: ReadinessReport }> {
  const results = await runReadinessChecks(readinessChecks(ctx));
  const checks: ReadinessReport = {};
  for (const r of results) checks[r.name] = r.detail;
  return { ok: results.every((r) => r.state === 'ok'), checks };
}

export async function healthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Liveness: the process answers. A restart would not fix a database outage, so this does not ask it.
  app.get('/healthz', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { status: 'ok' as const };
  });

  // Readiness: send traffic here while this instance's own dependencies answer (its database pool,
  // its disk), and not once a graceful shutdown has begun (the load balancer moves clients first).
  // Redis down is `degraded` with 200: every instance sees it at once, and they all still serve.
  app.get('/readyz', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    if (ctx.lifecycle.draining) return reply.status(503).send({ status: 'draining', failed: [] });
    const { httpStatus, body } = readinessAnswer(await runReadinessChecks(readinessChecks(ctx)));
    if (body.status !== 'ok') ctx.logger.warn({ checks: body.checks }, `readiness: ${body.status}`);
    return reply.status(httpStatus).send(body);
  });
}
