import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';

/** A dependency that does not answer within this time counts as down. */
export const READINESS_TIMEOUT_MS = 2000;

export type ReadinessCheck = 'database' | 'redis' | 'storage';

/** Each dependency's answer: 'ok' or why it failed (never a secret: error names and codes only). */
export type ReadinessReport = Partial<Record<ReadinessCheck, string>>;

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

/** Asks the database, Redis (when configured) and the file storage, in parallel. */
export async function checkReadiness(ctx: AppContext): Promise<{ ok: boolean; checks: ReadinessReport }> {
  const probes: Array<[ReadinessCheck, () => Promise<unknown>]> = [
    ['database', () => ctx.database.ping()],
    ['storage', () => ctx.storage.checkReachable()],
  ];
  const redis = ctx.redis;
  if (redis)
    probes.push([
      'redis',
      async () => {
        // ioredis queues commands while reconnecting: a closed link must fail now, not later.
        if (redis.status !== 'ready') throw new Error(`redis ${redis.status}`);
        await redis.ping();
      },
    ]);
  const checks: ReadinessReport = {};
  await Promise.all(
    probes.map(async ([name, probe]) => {
      try {
        await withTimeout(probe(), READINESS_TIMEOUT_MS);
        checks[name] = 'ok';
      } catch (error) {
        checks[name] = reason(error);
      }
    }),
  );
  return { ok: Object.values(checks).every((v) => v === 'ok'), checks };
}

export async function healthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Liveness: the process answers. A restart would not fix a database outage, so this does not ask it.
  app.get('/healthz', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { status: 'ok' as const };
  });

  // Readiness: send traffic here only while the database, Redis and the file storage answer, and
  // not once a graceful shutdown has begun (the load balancer moves clients first).
  app.get('/readyz', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    if (ctx.lifecycle.draining) return reply.status(503).send({ status: 'draining', failed: [] });
    const { ok, checks } = await checkReadiness(ctx);
    if (ok) return { status: 'ok' as const, checks };
    const failed = Object.entries(checks)
      .filter(([, v]) => v !== 'ok')
      .map(([k]) => k);
    ctx.logger.warn({ checks }, 'readiness check failed');
    return reply.status(503).send({ status: 'error', failed, checks });
  });
}
