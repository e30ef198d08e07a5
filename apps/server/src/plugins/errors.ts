import { MESSAGES } from '@securering/contract';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../lib/app-error';

/**
 * One error handler: every failure answers `{ success: false, error }` with a French message.
 * Unexpected errors are logged with the request id and answered without internals.
 */
export function registerErrorHandling(app: FastifyInstance): void {
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
    if (status >= 400 && status < 500) {
      // Malformed JSON, wrong content type, bad multipart: the caller's fault, no details leaked.
      request.log.info({ err: { code: error.code, message: error.message } }, 'client error');
      return reply.status(status).send({ success: false, error: MESSAGES.invalidRequest });
    }
    request.log.error({ err: error, reqId: request.id }, 'unexpected error');
    return reply.status(500).send({ success: false, error: MESSAGES.internalError });
  });
}
