import zlib from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

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

/**
 * Compresses the API's answers above 1 KB (brotli, else gzip) for the clients that ask for it.
 * Built SPA assets are compressed at build time and sent as they are (see spa.ts); an answer that
 * already has a Content-Encoding is left alone, and so are partial answers: a request carrying a
 * Range header is served without any encoding, so byte ranges always address the file itself.
 * Request bodies are never decompressed (bodies keep their per-route limits as sent).
 * socket.io does not go through Fastify's routes and is not affected.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers.range !== undefined) delete request.headers['accept-encoding'];
    done();
  });
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    customTypes: COMPRESSIBLE_TYPES,
    // On the fly, the fastest levels: a 40 KB history page takes ~0.1 ms at brotli 1 and shrinks
    // about as much as at the default levels (4 and 6), which cost three to four times more CPU.
    brotliOptions: {
      params: {
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_QUALITY]: ON_THE_FLY_BROTLI_QUALITY,
      },
    },
    zlibOptions: { level: ON_THE_FLY_GZIP_LEVEL },
    // Answers up to this size are compressed in one synchronous call rather than through a stream
    // (a zlib stream per answer costs more in allocation than the compression itself).
    syncThreshold: SYNC_COMPRESSION_MAX_BYTES,
  });
}
