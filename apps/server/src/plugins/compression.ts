import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { pickEncoding, type ContentEncoding } from '../lib/content-encoding';

/** Answers smaller than this go as they are: compressing them costs more than it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** On-the-fly compression levels (static assets are compressed at build time at the highest). */
export const ON_THE_FLY_BROTLI_QUALITY = 1;
export const ON_THE_FLY_GZIP_LEVEL = 1;
export const SYNC_COMPRESSION_MAX_BYTES = 256 * 1024;

/**
 * Text the server writes itself: JSON, HTML, CSV, JavaScript, XML, SVG. Never event streams (each
 * event must leave at once), never images, archives or `application/octet-stream` (Ring files are
 * ciphertext, which does not compress).
 */
export const COMPRESSIBLE_TYPES =
  /^(?:application\/(?:json|javascript|xml|[\w.+-]+\+json)|text\/(?!event-stream)[\w.+-]+|image\/svg\+xml)(?:;|$)/i;

// On the fly, the fastest levels: a 40 KB history page takes ~0.1 ms at brotli 1 and shrinks about
// as much as at the default levels (4 and 6), which cost three to four times more CPU.
const BROTLI_OPTIONS: zlib.BrotliOptions = {
  params: {
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_QUALITY]: ON_THE_FLY_BROTLI_QUALITY,
  },
};
const GZIP_OPTIONS: zlib.ZlibOptions = { level: ON_THE_FLY_GZIP_LEVEL };

/** One synchronous call for an answer held in memory (a zlib stream per answer costs more). */
const COMPRESS_SYNC: Record<ContentEncoding, (body: Buffer) => Buffer> = {
  br: (body) => zlib.brotliCompressSync(body, BROTLI_OPTIONS),
  gzip: (body) => zlib.gzipSync(body, GZIP_OPTIONS),
};
const COMPRESS_STREAM: Record<ContentEncoding, () => zlib.BrotliCompress | zlib.Gzip> = {
  br: () => zlib.createBrotliCompress(BROTLI_OPTIONS),
  gzip: () => zlib.createGzip(GZIP_OPTIONS),
};

/** Answers a route asked to send as they are (sendUncompressed). */
const uncompressed = new WeakSet<FastifyReply>();

/**
 * This answer goes uncompressed: a catch-up page is base64 ciphertext (compression saves about a
 * quarter) and large, and compressing it on the fly copies it into buffers that wait for the
 * garbage collector — 50 pages catching up at once would hold them all (docs/BENCHMARKS.md).
 */
export function sendUncompressed(reply: FastifyReply): void {
  uncompressed.add(reply);
}

/** Whether an answer of this type and status may be compressed at all (the client aside). */
export function isCompressible(reply: FastifyReply): boolean {
  if (uncompressed.has(reply)) return false;
  if (reply.statusCode === 206 || reply.hasHeader('content-range')) return false;
  const encoded = reply.getHeader('content-encoding');
  if (encoded !== undefined && encoded !== 'identity') return false;
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && COMPRESSIBLE_TYPES.test(type);
}

/** Adds Accept-Encoding to the answer's Vary header, once. */
function varyOnAcceptEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const current = Array.isArray(vary) ? vary.join(', ') : vary === undefined ? '' : String(vary);
  if (/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(current)) return;
  reply.header('Vary', current ? `${current}, Accept-Encoding` : 'Accept-Encoding');
}

function isStream(payload: unknown): payload is Readable {
  return typeof (payload as { pipe?: unknown }).pipe === 'function';
}

/**
 * Compresses the server's text answers above 1 KB (brotli, else gzip) for the clients that ask for
 * it, and says they vary on Accept-Encoding. Built SPA assets and prepared answers carry their own
 * Content-Encoding and are left alone, and so are partial answers: a request carrying a Range
 * header is served without any encoding, so byte ranges always address the file itself. Request
 * bodies are never decompressed (bodies keep their per-route limits as sent). socket.io does not go
 * through Fastify's routes and is not affected.
 *
 * One global onSend hook rather than @fastify/compress: the plugin added two hooks to every route,
 * decorated every reply and measured every answer's bytes twice, about a fifth of what compressing
 * a history page costs (docs/BENCHMARKS.md, REST overhead).
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers.range !== undefined) delete request.headers['accept-encoding'];
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (payload === null || payload === undefined || !isCompressible(reply)) return done(null, payload);
    const inMemory = typeof payload === 'string' || Buffer.isBuffer(payload);
    const streamed = isStream(payload);
    if (!inMemory && !streamed) return done(null, payload);
    // A string's length in characters is at most its length in bytes: measured only when short.
    if (
      inMemory &&
      payload.length < COMPRESSION_THRESHOLD_BYTES &&
      Buffer.byteLength(payload) < COMPRESSION_THRESHOLD_BYTES
    )
      return done(null, payload);
    varyOnAcceptEncoding(reply);
    const encoding = pickEncoding(request.headers['accept-encoding']);
    if (!encoding) return done(null, payload);
    if (streamed) {
      reply.header('Content-Encoding', encoding).removeHeader('content-length');
      return done(null, compressing(payload, encoding, reply));
    }
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (body.length > SYNC_COMPRESSION_MAX_BYTES) {
      reply.header('Content-Encoding', encoding).removeHeader('content-length');
      return done(null, compressing(Readable.from([body]), encoding, reply));
    }
    let compressed: Buffer;
    try {
      compressed = COMPRESS_SYNC[encoding](body);
    } catch (error) {
      // The error's answer goes out as it is: no encoding header set yet.
      return done(error as Error);
    }
    reply.header('Content-Encoding', encoding).header('Content-Length', compressed.length);
    return done(null, compressed);
  });
}

/** The compressed stream of a body; a failure on either side ends the answer (and is logged). */
function compressing(source: Readable, encoding: ContentEncoding, reply: FastifyReply): Readable {
  const compressor = COMPRESS_STREAM[encoding]();
  pipeline(source, compressor, (error) => {
    if (error && !reply.raw.destroyed) reply.log.warn({ err: error }, 'compressed answer interrupted');
  });
  return compressor;
}
