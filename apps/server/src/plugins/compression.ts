import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Answers smaller than this go as they are: compressing them costs more than it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

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
  app.addHook('onRequest', async (request) => {
    if (request.headers.range !== undefined) delete request.headers['accept-encoding'];
  });
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    customTypes: COMPRESSIBLE_TYPES,
  });
}
