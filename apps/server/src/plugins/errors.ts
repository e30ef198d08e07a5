import { MESSAGES } from '@securering/contract';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../lib/app-error';
import { DEPENDENCY_RETRY_AFTER_SEC, unavailableDependency } from '../lib/dependency-errors';
import { DiskFullLog, isDiskFullError } from '../lib/disk-space';

/**
 * One error handler: every failure answers `{ success: false, error }` with a French message.
 * Unexpected errors are logged with the request id and answered without internals; a dependency
 * that is down (database, Redis) answers 503 with Retry-After and says so in French.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const diskFull = new DiskFullLog(app.log);
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      const retry = error.extra.retryAfterSec;
      if (typeof retry === 'number') reply.header('Retry-After', String(retry));
      const { retryAfterSec: _ignored, ...extra } = error.extra;
      return reply.status(error.statusCode).send({ success: false, error: error.message, ...extra });
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (
      status === 413 ||
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ||
      error.code === 'FST_REQ_FILE_TOO_LARGE'
    ) {
      return reply.status(413).send({ success: false, error: MESSAGES.payloadTooLarge });
    }
    if (status === 429) {
      return reply.status(429).send({ success: false, error: MESSAGES.tooManyRequests });
    }
    if (isDiskFullError(error)) {
      // SQLITE_FULL, ENOSPC, PostgreSQL's disk_full: one clear log line a minute, and a French 507.
      diskFull.report(error, { reqId: request.id, url: request.routeOptions.url });
      return reply.status(507).send({ success: false, error: MESSAGES.diskFull });
    }
    if (status >= 400 && status < 500) {
      // Malformed JSON, wrong content type, bad multipart: the caller's fault, no details leaked.
      request.log.info({ err: { code: error.code, message: error.message } }, 'client error');
      return reply.status(status).send({ success: false, error: MESSAGES.invalidRequest });
    }
    // The database or Redis is down: not a bug, and not for long. Say so, and when to try again.
    const dependency = unavailableDependency(error);
    if (dependency) {
      request.log.warn(
        {
          dependency,
          err: { name: error.name, code: error.code, message: error.message },
          reqId: request.id,
        },
        'dependency unavailable: answered 503',
      );
      reply.header('Retry-After', String(DEPENDENCY_RETRY_AFTER_SEC));
      return reply.status(503).send({ success: false, error: MESSAGES.serviceUnavailable });
    }
    request.log.error({ err: error, reqId: request.id }, 'unexpected error');
    return reply.status(500).send({ success: false, error: MESSAGES.internalError });
  });
}
