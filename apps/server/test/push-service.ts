import type { ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

interface EceModule {
  decrypt(buffer: Buffer, params: { version: string; privateKey: unknown; authSecret: string }): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as EceModule;

/** Opens a Web Push payload (aes128gcm) as the subscribed browser would, with its keys. */
export function openPushPayload(body: Buffer, privateKey: ECDH, authSecret: string): string {
  return ece.decrypt(body, { version: 'aes128gcm', privateKey, authSecret }).toString();
}

/** A request the push service received. */
export interface PushRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A push service stand-in on a free local port (tests cannot reach a real one): records each
 * request and answers 201, or 410 (the subscription is gone) for a path under /gone.
 */
export async function startPushService(): Promise<{
  base: string;
  received: PushRequest[];
  close(): Promise<void>;
}> {
  const received: PushRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = req.url?.startsWith('/gone') ? 410 : 201;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
