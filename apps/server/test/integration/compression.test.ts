import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_CONTROL } from '../../src/lib/cache-control';
import { pickEncoding } from '../../src/lib/content-encoding';
import { SYNC_COMPRESSION_MAX_BYTES } from '../../src/plugins/compression';
import { BOOTSTRAP_ELEMENT_ID, PLANS_ELEMENT_ID } from '../../src/plugins/spa';
import { buildTestApp, type TestApp } from '../build-test-app';
import { listen } from '../socket-client';

/** A tiny web build, as `vite build` and its precompress step lay it out. */
function makeFakeDist(): { dir: string; entry: Buffer; homeChunk: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-web-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.mkdirSync(path.join(dir, '.vite'));
  const entry = Buffer.from(
    Array.from({ length: 200 }, (_, i) => `export const value${i} = ${i} * 2; // entry line ${i}\n`).join(''),
  );
  const write = (name: string, content: Buffer | string, compressed = false) => {
    fs.writeFileSync(path.join(dir, name), content);
    if (compressed) {
      fs.writeFileSync(path.join(dir, `${name}.br`), zlib.brotliCompressSync(content));
      fs.writeFileSync(path.join(dir, `${name}.gz`), zlib.gzipSync(content));
    }
  };
  write('assets/index-Ab12Cd34.js', entry, true);
  write('assets/home-page-Ef56Gh78.js', 'export function HomePage() { return null; }\n');
  write('assets/plans-Ij90Kl12.js', 'export const plans = [];\n');
  write('favicon.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
  write(
    'index.html',
    [
      '<!doctype html>',
      '<html lang="fr">',
      '  <head>',
      '    <meta charset="UTF-8" />',
      '    <title>SecureRing</title>',
      '    <!--app-head-->',
      '    <script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script>',
      '  </head>',
      '  <body><div id="root"></div></body>',
      '</html>',
      '',
    ].join('\n'),
  );
  write(
    '.vite/manifest.json',
    JSON.stringify({
      'index.html': { file: 'assets/index-Ab12Cd34.js', isEntry: true, imports: [] },
      'src/features/home/home-page.tsx': {
        file: 'assets/home-page-Ef56Gh78.js',
        isDynamicEntry: true,
        imports: ['index.html', '_plans-Ij90Kl12.js'],
      },
      '_plans-Ij90Kl12.js': { file: 'assets/plans-Ij90Kl12.js' },
    }),
  );
  return { dir, entry, homeChunk: 'assets/home-page-Ef56Gh78.js' };
}

const decode = (encoding: unknown, body: Buffer): Buffer =>
  encoding === 'br' ? zlib.brotliDecompressSync(body) : encoding === 'gzip' ? zlib.gunzipSync(body) : body;

describe('compression and caching', () => {
  let t: TestApp;
  let dist: ReturnType<typeof makeFakeDist>;
  const bigText = 'ligne de texte répétée pour dépasser le seuil de compression\n'.repeat(200);
  const csvCell = 'cellule;'.repeat(25);

  beforeAll(async () => {
    dist = makeFakeDist();
    t = await buildTestApp({
      config: { webDistDir: dist.dir },
      beforeReady(app) {
        app.get('/test/event-stream', async (_request, reply) =>
          reply.type('text/event-stream').send(`data: ${bigText}\n\n`),
        );
        app.get('/test/binary', async (_request, reply) =>
          reply.type('application/octet-stream').send(Buffer.from(bigText)),
        );
        // Over the synchronous limit: compressed through a stream.
        app.get('/test/large-json', async () => ({
          rows: Array.from({ length: 6000 }, (_, i) => ({ i, bigText: csvCell })),
        }));
        // 400 characters, 1,200 bytes in UTF-8: over the threshold in bytes, not in characters.
        app.get('/test/multibyte', async (_request, reply) =>
          reply.type('text/plain; charset=utf-8').send('€'.repeat(400)),
        );
        app.get('/test/vary', async (_request, reply) =>
          reply.header('Vary', 'Origin').type('text/plain; charset=utf-8').send(bigText),
        );
        app.get('/test/stream-csv', async (_request, reply) =>
          reply
            .type('text/csv; charset=utf-8')
            .send(Readable.from(Array.from({ length: 50 }, (_, i) => `${i};${csvCell}\n`))),
        );
      },
    });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist.dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  it('sends a hashed asset precompressed (brotli, else gzip) with Vary and a one-year immutable cache', async () => {
    for (const [accept, expected] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0.8', 'gzip'],
    ] as const) {
      const res = await get('/assets/index-Ab12Cd34.js', { 'accept-encoding': accept });
      expect(res.statusCode, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(expected);
      expect(res.headers['vary'], accept).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control'], accept).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type'], accept).toMatch(/^(?:text|application)\/javascript/);
      expect(res.rawPayload.length, accept).toBeLessThan(dist.entry.length / 2);
      expect(decode(expected, res.rawPayload).equals(dist.entry), accept).toBe(true);
    }
  });

  it('sends the file as it is without Accept-Encoding, still saying that the answer varies on it', async () => {
    const res = await get('/assets/index-Ab12Cd34.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['vary']).toMatch(/accept-encoding/i);
    expect(res.rawPayload.equals(dist.entry)).toBe(true);
  });

  it('answers a Range request with the bytes of the file itself, never compressed', async () => {
    const res = await get('/assets/index-Ab12Cd34.js', {
      'accept-encoding': 'br, gzip',
      range: 'bytes=0-99',
    });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-range']).toBe(`bytes 0-99/${dist.entry.length}`);
    expect(res.rawPayload.equals(dist.entry.subarray(0, 100))).toBe(true);

    const tail = await get('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip', range: 'bytes=-10' });
    expect(tail.statusCode).toBe(206);
    expect(tail.headers['content-encoding']).toBeUndefined();
    expect(tail.rawPayload.equals(dist.entry.subarray(dist.entry.length - 10))).toBe(true);
  });

  it('never serves the compressed copies, the raw page template or the build manifest by name', async () => {
    for (const url of [
      '/assets/index-Ab12Cd34.js.br',
      '/assets/index-Ab12Cd34.js.gz',
      '/index.html',
      '/.vite/manifest.json',
    ]) {
      const res = await get(url, { 'accept-encoding': 'br' });
      expect(res.statusCode, url).toBe(404);
      expect(decode(res.headers['content-encoding'], res.rawPayload).toString(), url).not.toContain(
        '<!--app-head-->',
      );
    }
  });

  it('gives files without a hash in their name a short cache with revalidation', async () => {
    const res = await get('/favicon.svg');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe(CACHE_CONTROL.shortRevalidate);
    expect(res.headers['etag']).toBeDefined();
    const again = await get('/favicon.svg', { 'if-none-match': String(res.headers['etag']) });
    expect(again.statusCode).toBe(304);
  });

  it('sends the page compressed, revalidated through its ETag, with the settings and the route preloads in it', async () => {
    const res = await get('/', { 'accept-encoding': 'br, gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['vary']).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const etag = String(res.headers['etag']);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const html = decode('br', res.rawPayload).toString();
    expect(html).toContain('<title>SecureRing');
    expect(html).toContain(`<link rel="modulepreload" crossorigin href="/${dist.homeChunk}">`);
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/plans-Ij90Kl12.js">');
    // The entry is loaded by its own <script>: not preloaded twice.
    expect(html.match(/index-Ab12Cd34\.js/g)).toHaveLength(1);
    const block = new RegExp(
      `<script type="application/json" id="${BOOTSTRAP_ELEMENT_ID}">(.*?)</script>`,
    ).exec(html);
    const settings = JSON.parse(block![1]!) as Record<string, Record<string, string>>;
    expect(settings.general?.site_name).toBe('SecureRing');
    expect(settings.maintenance?.maintenance_mode).toBe('0');

    const gzip = await get('/', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decode('gzip', gzip.rawPayload).toString()).toBe(html);
    expect(gzip.headers['etag']).toBe(etag);

    const plain = await get('/');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(html);

    const revalidated = await get('/', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.rawPayload.length).toBe(0);
    expect(revalidated.headers['etag']).toBe(etag);
  });

  it('writes the active plans into the home page only, as the plans API gives them', async () => {
    const api = (await get('/api/subscriptions/plans.php')).json() as { data: Array<{ id: string }> };
    const block = (html: string) =>
      new RegExp(`<script type="application/json" id="${PLANS_ELEMENT_ID}">(.*?)</script>`).exec(html)?.[1];
    const home = block((await get('/')).body);
    expect(api.data.length).toBeGreaterThan(0);
    expect(JSON.parse(home!)).toEqual(api.data);
    for (const url of ['/contact', '/subscribe', '/nope'])
      expect(block((await get(url)).body), url).toBeUndefined();
  });

  it('changes the page ETag when a setting the page shows changes', async () => {
    const before = String((await get('/')).headers['etag']);
    await t.ctx.settings.save('general', { site_name: 'Anneau Sûr' });
    try {
      const res = await get('/', { 'if-none-match': before });
      expect(res.statusCode).toBe(200);
      expect(res.headers['etag']).not.toBe(before);
      expect(res.body).toContain('"site_name":"Anneau Sûr"');
    } finally {
      await t.ctx.settings.save('general', { site_name: 'SecureRing' });
    }
  });

  it('keeps settings text from closing the data block', async () => {
    await t.ctx.settings.save('general', { site_name: '</script><script>alert(1)</script>' });
    try {
      const html = (await get('/')).body;
      const block = new RegExp(
        `<script type="application/json" id="${BOOTSTRAP_ELEMENT_ID}">(.*?)</script>`,
      ).exec(html);
      expect(block![1]).not.toContain('<');
      expect((JSON.parse(block![1]!) as { general: { site_name: string } }).general.site_name).toBe(
        '</script><script>alert(1)</script>',
      );
    } finally {
      await t.ctx.settings.save('general', { site_name: 'SecureRing' });
    }
  });

  it('compresses JSON answers above 1 KB, and only for clients that accept it', async () => {
    const plain = await get('/api/settings.php');
    expect(plain.statusCode).toBe(200);
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    expect(plain.headers['content-encoding']).toBeUndefined();

    for (const encoding of ['br', 'gzip'] as const) {
      const res = await get('/api/settings.php', { 'accept-encoding': encoding });
      expect(res.headers['content-encoding'], encoding).toBe(encoding);
      expect(res.headers['vary'], encoding).toMatch(/accept-encoding/i);
      expect(res.rawPayload.length, encoding).toBeLessThan(plain.rawPayload.length);
      expect(JSON.parse(decode(encoding, res.rawPayload).toString()), encoding).toEqual(plain.json());
    }
  });

  it('says that a compressible answer varies on Accept-Encoding even when sent as it is', async () => {
    const plain = await get('/api/settings.php');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['vary']).toMatch(/accept-encoding/i);

    const withOrigin = await get('/test/vary', { 'accept-encoding': 'gzip' });
    expect(withOrigin.headers['content-encoding']).toBe('gzip');
    expect(withOrigin.headers['vary']).toBe('Origin, Accept-Encoding');
    expect(decode('gzip', withOrigin.rawPayload).toString()).toBe(bigText);
  });

  it('compresses answers over the synchronous limit through a stream, whole', async () => {
    const plain = await get('/test/large-json');
    expect(plain.rawPayload.length).toBeGreaterThan(SYNC_COMPRESSION_MAX_BYTES);
    for (const encoding of ['br', 'gzip'] as const) {
      const res = await get('/test/large-json', { 'accept-encoding': encoding });
      expect(res.headers['content-encoding'], encoding).toBe(encoding);
      expect(res.headers['content-length'], encoding).toBeUndefined();
      expect(res.rawPayload.length, encoding).toBeLessThan(plain.rawPayload.length / 10);
      expect(JSON.parse(decode(encoding, res.rawPayload).toString()), encoding).toEqual(plain.json());
    }
  });

  it('measures the threshold in bytes, not characters', async () => {
    const res = await get('/test/multibyte', { 'accept-encoding': 'br' });
    expect(res.headers['content-encoding']).toBe('br');
    expect(decode('br', res.rawPayload).toString()).toBe('€'.repeat(400));
  });

  it('sends the answer as it is, with its exact length, to a client that accepts only identity', async () => {
    const res = await get('/test/large-json', { 'accept-encoding': 'identity' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.json()).toMatchObject({ rows: expect.any(Array) });
  });

  it('leaves JSON answers of 1 KB or less as they are', async () => {
    const res = await get('/healthz', { 'accept-encoding': 'br, gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeLessThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json()).toMatchObject({ status: expect.any(String) });
  });

  it('never compresses event streams or binary data, and streams text downloads whole', async () => {
    const events = await get('/test/event-stream', { 'accept-encoding': 'br, gzip' });
    expect(events.headers['content-encoding']).toBeUndefined();
    expect(events.body).toBe(`data: ${bigText}\n\n`);

    const binary = await get('/test/binary', { 'accept-encoding': 'br, gzip' });
    expect(binary.headers['content-encoding']).toBeUndefined();
    expect(binary.rawPayload.toString()).toBe(bigText);

    const csv = await get('/test/stream-csv', { 'accept-encoding': 'gzip' });
    expect(csv.headers['content-encoding']).toBe('gzip');
    const lines = decode('gzip', csv.rawPayload).toString().trimEnd().split('\n');
    expect(lines).toHaveLength(50);
    expect(lines[49]).toBe(`49;${csvCell}`);
  });

  it('leaves socket.io alone: a polling handshake asking for compression still opens', async () => {
    const base = await listen(t.app);
    const { status, encoding, body } = await new Promise<{ status: number; encoding?: string; body: Buffer }>(
      (resolve, reject) => {
        const request = http.get(
          `${base}/socket.io/?EIO=4&transport=polling`,
          { headers: { 'accept-encoding': 'br, gzip' } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                encoding: response.headers['content-encoding'],
                body: Buffer.concat(chunks),
              }),
            );
          },
        );
        request.on('error', reject);
      },
    );
    expect(status).toBe(200);
    expect(encoding).not.toBe('br');
    const text = decode(encoding, body).toString();
    expect(text.startsWith('0{')).toBe(true);
    expect(JSON.parse(text.slice(1))).toMatchObject({ sid: expect.any(String), upgrades: ['websocket'] });
  });
});

describe('pickEncoding', () => {
  it('prefers brotli, honours q-values and refusals, and falls back to none', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip')).toBe('gzip');
    expect(pickEncoding('br;q=0.5, gzip;q=0.9')).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip;q=0')).toBeUndefined();
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('identity')).toBeUndefined();
    expect(pickEncoding(undefined)).toBeUndefined();
    expect(pickEncoding('deflate')).toBeUndefined();
  });

  it('answers the same for a header met again, refusals included, and past the values it keeps', () => {
    for (let round = 0; round < 2; round++) {
      expect(pickEncoding('br;q=0, gzip;q=0')).toBeUndefined();
      expect(pickEncoding('br;q=0.5, gzip;q=0.9')).toBe('gzip');
      for (let i = 0; i < 100; i++) {
        // Brotli from q=0.5 on (ties go to brotli), gzip below.
        expect(pickEncoding(`gzip;q=0.5, br;q=0.${i % 10}, x-${i}`)).toBe(i % 10 >= 5 ? 'br' : 'gzip');
        expect(pickEncoding(`br, x-${i}`)).toBe('br');
      }
    }
  });
});
