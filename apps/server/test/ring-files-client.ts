import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { ENCRYPTED_FILE_FORMAT, encryptedFileSize } from '@securering/contract';

/** Helpers for the file space tests: encrypted-looking contents and hand-built multipart bodies. */

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Bytes shaped like an SRF1 file of `plainBytes` (magic, header, right encrypted size), random
 * otherwise: the server cannot tell them from real ciphertext, and they are fast to make.
 */
export function fakeCiphertext(plainBytes: number): Buffer {
  const out = randomBytes(encryptedFileSize(plainBytes));
  Buffer.from(ENCRYPTED_FILE_FORMAT.magic).copy(out, 0);
  return out;
}

/**
 * An SRF1-shaped stream of `plainBytes` made on the fly in 64 KiB pieces (the client holds no
 * copy), and the SHA-256 of everything it produced once consumed.
 */
export function fakeCiphertextStream(plainBytes: number): {
  size: number;
  chunks: () => Generator<Buffer>;
  digest: () => string;
} {
  const size = encryptedFileSize(plainBytes);
  const hash = createHash('sha256');
  let digest = '';
  function* chunks(): Generator<Buffer> {
    let sent = 0;
    const piece = randomBytes(64 * 1024);
    while (sent < size) {
      const n = Math.min(piece.length, size - sent);
      const chunk = Buffer.from(piece.subarray(0, n));
      if (sent === 0) Buffer.from(ENCRYPTED_FILE_FORMAT.magic).copy(chunk, 0);
      // Vary the content so a range read cannot pass by luck.
      if (n >= 12) chunk.writeUInt32BE(sent >>> 0, 8);
      hash.update(chunk);
      sent += n;
      yield chunk;
    }
    digest = hash.digest('hex');
  }
  return { size, chunks, digest: () => digest };
}

/** A multipart/form-data body split in head (fields, file part header), file and tail. */
export function multipartFrame(
  fieldsBefore: Array<[string, string]>,
  fieldsAfter: Array<[string, string]> = [],
  fileField = 'file',
): { boundary: string; head: Buffer; tail: Buffer; contentType: string } {
  const boundary = `----securering${randomBytes(8).toString('hex')}`;
  const field = ([name, value]: [string, string]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head =
    fieldsBefore.map(field).join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="blob"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  const tail = `\r\n${fieldsAfter.map(field).join('')}--${boundary}--\r\n`;
  return {
    boundary,
    head: Buffer.from(head),
    tail: Buffer.from(tail),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

export function multipartBody(
  fieldsBefore: Array<[string, string]>,
  content: Buffer,
  fieldsAfter: Array<[string, string]> = [],
): { payload: Buffer; contentType: string } {
  const frame = multipartFrame(fieldsBefore, fieldsAfter);
  return { payload: Buffer.concat([frame.head, content, frame.tail]), contentType: frame.contentType };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json(): any;
}

/**
 * Sends a request over a real socket, writing the body piece by piece (respecting back-pressure).
 * `contentLength: false` sends it chunked (no length known in advance). `stopAfter` stops
 * writing after that many bytes and waits for an answer (an early refusal), or, with `abortAfter`,
 * drops the connection there (an interrupted upload).
 */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: Iterable<Buffer> | AsyncIterable<Buffer>;
    contentLength?: number | false;
    stopAfter?: number;
    abortAfter?: number;
    timeoutMs?: number;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (typeof options.contentLength === 'number') headers['content-length'] = String(options.contentLength);
    if (options.contentLength === false) headers['transfer-encoding'] = 'chunked';
    // No keep-alive: every test request has its own connection, closed with it.
    const request = http.request(url, { method: options.method ?? 'POST', headers, agent: false });
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      request.destroy();
      reject(new Error(`no answer within ${options.timeoutMs ?? 60_000} ms`));
    }, options.timeoutMs ?? 60_000);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        const body = Buffer.concat(chunks);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body,
          json: () => JSON.parse(body.toString('utf8')),
        });
      });
    });
    request.on('error', (error) => {
      if (settled) return;
      if (options.abortAfter !== undefined) {
        settled = true;
        clearTimeout(timer);
        resolve({ status: 0, headers: {}, body: Buffer.alloc(0), json: () => ({}) });
        return;
      }
      // The server may answer and close while the body is still being written.
      setTimeout(() => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      }, 2_000);
    });
    const write = async () => {
      let written = 0;
      for await (const chunk of options.body ?? []) {
        if (settled || request.destroyed) return;
        const limit = options.abortAfter ?? options.stopAfter;
        const piece =
          limit !== undefined && written + chunk.length > limit ? chunk.subarray(0, limit - written) : chunk;
        if (piece.length > 0 && !request.write(piece))
          await new Promise<void>((r) => {
            const done = () => r();
            request.once('drain', done);
            request.once('close', done);
          });
        written += piece.length;
        if (limit !== undefined && written >= limit) {
          if (options.abortAfter !== undefined) {
            // Let the bytes leave, then cut the connection as a dropped network would.
            await new Promise((r) => setTimeout(r, 200));
            request.destroy(new Error('interrupted by the test'));
          }
          return;
        }
      }
      request.end();
    };
    write().catch((error: unknown) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(error as Error);
      }
    });
  });
}

/** Streams a GET response, hashing it without keeping it. */
export function streamDownload(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (response) => {
        const hash = createHash('sha256');
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          hash.update(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            bytes,
            sha256: hash.digest('hex'),
          }),
        );
        response.on('error', reject);
      })
      .on('error', reject);
  });
}
