import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pickEncoding } from './content-encoding';

/**
 * A JSON answer serialised and compressed once, served as it is to every caller: no per-request
 * serialisation, no on-the-fly compression, an ETag for 304s. For answers that are the same for
 * everyone and change rarely (the public plans).
 */
export interface PreparedAnswer {
  body: Buffer;
  br: Buffer;
  gzip: Buffer;
  etag: string;
}

export function prepareJsonAnswer(value: unknown): PreparedAnswer {
  const body = Buffer.from(JSON.stringify(value));
  return {
    body,
    br: zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    gzip: zlib.gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/** Sends a prepared answer: 304 for a matching If-None-Match, else brotli, gzip or plain. */
export function sendPreparedAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: PreparedAnswer,
): FastifyReply {
  reply.header('Content-Type', 'application/json; charset=utf-8');
  reply.header('Vary', 'Accept-Encoding');
  reply.header('ETag', answer.etag);
  reply.header('Cache-Control', 'no-cache');
  const match = request.headers['if-none-match'];
  if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === answer.etag))
    return reply.code(304).send();
  const encoding = pickEncoding(request.headers['accept-encoding']);
  return encoding
    ? reply.header('Content-Encoding', encoding).send(answer[encoding])
    : reply.send(answer.body);
}

/**
 * One prepared answer kept until invalidated (by the writer, on every instance) or `ttlMs` old,
 * whichever comes first: the time limit bounds staleness should an invalidation be lost. Readers
 * arriving while it is refilled share one load.
 */
export class AnswerCache {
  private value: { answer: PreparedAnswer; at: number } | undefined;
  private loading: Promise<PreparedAnswer> | undefined;
  private generation = 0;

  constructor(
    private readonly load: () => Promise<unknown>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<PreparedAnswer> {
    if (this.value && this.now() - this.value.at < this.ttlMs) return this.value.answer;
    if (this.loading) return this.loading;
    const generation = this.generation;
    const at = this.now();
    const loading = this.load()
      .then((data) => {
        const answer = prepareJsonAnswer(data);
        // Invalidated during the load: this answer goes to its waiting readers only.
        if (generation === this.generation) this.value = { answer, at };
        return answer;
      })
      .finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    this.loading = loading;
    return loading;
  }

  /** Readers from now on get a fresh load (not one that started before this call). */
  invalidate(): void {
    this.generation += 1;
    this.value = undefined;
    this.loading = undefined;
  }
}
