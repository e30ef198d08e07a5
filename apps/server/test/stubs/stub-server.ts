import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: string;
}

export interface StubResponse {
  status?: number;
  body: unknown;
}

type Handler = (req: StubRequest, params: Record<string, string>) => StubResponse | Promise<StubResponse>;

/** A tiny HTTP server with a route table that records every request it receives. */
export class StubServer {
  readonly requests: StubRequest[] = [];
  private readonly routes: Array<{ method: string; pattern: RegExp; keys: string[]; handler: Handler }> = [];
  private server: Server | undefined;
  base = '';

  route(method: string, path: string, handler: Handler): this {
    const keys: string[] = [];
    const pattern = new RegExp(
      `^${path.replace(/:([a-z_]+)/g, (_m, key: string) => (keys.push(key), '([^/]+)'))}$`,
    );
    this.routes.push({ method, pattern, keys, handler });
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.base);
    const request: StubRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      rawBody: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(request);
    for (const route of this.routes) {
      const match = route.method === request.method ? route.pattern.exec(request.path) : null;
      if (!match) continue;
      const params = Object.fromEntries(
        route.keys.map((key, i) => [key, decodeURIComponent(match[i + 1] ?? '')]),
      );
      try {
        const out = await route.handler(request, params);
        res.writeHead(out.status ?? 200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(out.body));
      } catch (error) {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: (error as Error).message }));
      }
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: `no stub route for ${request.method} ${request.path}` }));
  }
}

/** Stripe's form encoding (`a[b][0][c]=1`) back into an object. */
export function parseStripeForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter(Boolean);
    let node: Record<string, unknown> = out;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}
