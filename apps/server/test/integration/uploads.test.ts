import fs from 'node:fs';
import path from 'node:path';
import { MESSAGES, SITE_UPLOAD_MESSAGES, ZSiteImageUploadResponse } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storagePaths } from '../../src/lib/storage-paths';
import { buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin } from '../factories';

const UPLOAD = '/api/admin/upload.php';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.from(
  'ffd8ffe000104a46494600010100000100010000ffdb004300' + '08'.repeat(64) + 'ffd9',
  'hex',
);
/** An icon file holding the PNG as its one image. */
function icoOf(image: Buffer): Buffer {
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(1, 4);
  header.writeUInt8(1, 6);
  header.writeUInt8(1, 7);
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(22, 18);
  return Buffer.concat([header, image]);
}
const ICO = icoOf(PNG);

type Part =
  { name: string; value: string } | { name: string; filename: string; contentType: string; data: Buffer };

/** A multipart/form-data body with its parts in the given order. */
function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----securering${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('value' in part) {
      chunks.push(
        Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`),
      );
    } else {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType}\r\n\r\n`,
        ),
        part.data,
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const file = (data: Buffer, filename = 'image.png', contentType = 'image/png'): Part => ({
  name: 'file',
  filename,
  contentType,
  data,
});

describe('logo and favicon upload', () => {
  let t: TestApp;
  let editHeaders: Record<string, string>;
  let viewHeaders: Record<string, string>;
  let otherHeaders: Record<string, string>;
  let editorId: string;
  let uploadsDir: string;

  const upload = (headers: Record<string, string>, parts: Part[]) => {
    const body = multipart(parts);
    return t.app.inject({
      method: 'POST',
      url: UPLOAD,
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });
  };
  type Value = { setting_value: string };
  const general = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/settings.php?category=general' })).json().data
      .general as {
      logo: Value;
      favicon: Value;
    } & Record<string, Value>;
  const storedFiles = () => (fs.existsSync(uploadsDir) ? fs.readdirSync(uploadsDir).sort() : []);

  beforeAll(async () => {
    t = await buildTestApp();
    uploadsDir = storagePaths.uploads(t.ctx.config);
    const editor = await buildAdmin(t.ctx, {
      permissions: [
        ['site_settings', 'view'],
        ['site_settings', 'edit'],
      ],
    });
    editorId = editor.id;
    editHeaders = bearer(await adminToken(t.ctx, editor.id));
    const viewer = await buildAdmin(t.ctx, { permissions: [['site_settings', 'view']] });
    viewHeaders = bearer(await adminToken(t.ctx, viewer.id));
    const other = await buildAdmin(t.ctx, {
      permissions: [
        ['plans', 'view'],
        ['plans', 'edit'],
      ],
    });
    otherHeaders = bearer(await adminToken(t.ctx, other.id));
  });
  afterAll(() => t.close());

  it('needs a token and the edit right on site settings', async () => {
    const none = await upload({}, [{ name: 'type', value: 'logo' }, file(PNG)]);
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
    for (const headers of [viewHeaders, otherHeaders]) {
      const res = await upload(headers, [{ name: 'type', value: 'logo' }, file(PNG)]);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ success: false, error: MESSAGES.noEditRight });
    }
    expect(storedFiles()).toEqual([]);
    expect((await general()).logo.setting_value).toBe('');
  });

  it('stores a PNG logo, points the setting at it, serves it back as image/png with nosniff, and audits it', async () => {
    const res = await upload(editHeaders, [{ name: 'type', value: 'logo' }, file(PNG)]);
    expect(res.statusCode).toBe(200);
    const { url } = ZSiteImageUploadResponse.parse(res.json());
    expect(url).toMatch(/^\/uploads\/logo-[A-Za-z0-9_-]+\.png$/);
    expect((await general()).logo.setting_value).toBe(url);

    const served = await t.app.inject({ method: 'GET', url });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    // No content hash in the name: a short cache, then a revalidation answered 304.
    expect(served.headers['cache-control']).toBe('public, max-age=3600, must-revalidate');
    expect(served.rawPayload.equals(PNG)).toBe(true);
    const etag = String(served.headers['etag']);
    const unchanged = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.rawPayload.length).toBe(0);
    const since = String(served.headers['last-modified']);
    const notModified = await t.app.inject({ method: 'GET', url, headers: { 'if-modified-since': since } });
    expect(notModified.statusCode).toBe(304);
    const stale = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': '"autre"' } });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(PNG)).toBe(true);

    const audit = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', SITE_UPLOAD_MESSAGES.logoUpdated)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ category: 'admin', level: 'info', user_id: editorId });
    expect(JSON.parse(audit[0]!.details!)).toMatchObject({ type: 'logo', url, format: 'png' });
  });

  it('accepts the type after the file, judges by content (a JPEG named .png is served as JPEG), and removes the previous logo', async () => {
    const previous = (await general()).logo.setting_value;
    const previousFile = path.join(uploadsDir, previous.replace('/uploads/', ''));
    expect(fs.existsSync(previousFile)).toBe(true);

    const res = await upload(editHeaders, [
      file(JPEG, 'photo.png', 'image/png'),
      { name: 'type', value: 'logo' },
    ]);
    expect(res.statusCode).toBe(200);
    const { url } = ZSiteImageUploadResponse.parse(res.json());
    expect(url).toMatch(/^\/uploads\/logo-[A-Za-z0-9_-]+\.jpg$/);
    expect((await general()).logo.setting_value).toBe(url);
    const served = await t.app.inject({ method: 'GET', url });
    expect(served.headers['content-type']).toBe('image/jpeg');

    expect(fs.existsSync(previousFile)).toBe(false);
    expect((await t.app.inject({ method: 'GET', url: previous })).statusCode).toBe(404);
  });

  it('stores an ICO favicon without touching the logo, served as an icon', async () => {
    const before = storedFiles();
    const logo = (await general()).logo.setting_value;
    const res = await upload(editHeaders, [
      { name: 'type', value: 'favicon' },
      file(ICO, 'favicon.ico', 'image/vnd.microsoft.icon'),
    ]);
    expect(res.statusCode).toBe(200);
    const { url } = ZSiteImageUploadResponse.parse(res.json());
    expect(url).toMatch(/^\/uploads\/favicon-[A-Za-z0-9_-]+\.ico$/);
    const settings = await general();
    expect(settings.favicon.setting_value).toBe(url);
    expect(settings.logo.setting_value).toBe(logo);
    expect(storedFiles()).toHaveLength(before.length + 1);
    const served = await t.app.inject({ method: 'GET', url });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/x-icon');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
  });

  it('never deletes a file the setting pointed at unless it is an upload of that type', async () => {
    fs.writeFileSync(path.join(uploadsDir, 'favicon-keepme.png'), PNG);
    await t.ctx.settings.save('general', { logo: '/uploads/favicon-keepme.png' });
    const res = await upload(editHeaders, [{ name: 'type', value: 'logo' }, file(PNG)]);
    expect(res.statusCode).toBe(200);
    expect(fs.existsSync(path.join(uploadsDir, 'favicon-keepme.png'))).toBe(true);
  });

  it('refuses SVG, text and HTML disguised as PNG with the French message, changing nothing', async () => {
    const before = storedFiles();
    const settings = await general();
    const refused: Part[][] = [
      [
        { name: 'type', value: 'logo' },
        file(
          Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>',
          ),
          'logo.svg',
          'image/svg+xml',
        ),
      ],
      [{ name: 'type', value: 'logo' }, file(Buffer.from('bonjour'), 'notes.txt', 'text/plain')],
      [
        { name: 'type', value: 'favicon' },
        file(
          Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>'),
          'logo.png',
          'image/png',
        ),
      ],
      [{ name: 'type', value: 'logo' }, file(Buffer.alloc(0))],
      [{ name: 'type', value: 'logo' }],
    ];
    for (const parts of refused) {
      const res = await upload(editHeaders, parts);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: SITE_UPLOAD_MESSAGES.invalidImage });
    }
    const json = await t.app.inject({
      method: 'POST',
      url: UPLOAD,
      headers: editHeaders,
      payload: { type: 'logo', file: 'x' },
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toBe(SITE_UPLOAD_MESSAGES.invalidImage);
    const badType = await upload(editHeaders, [{ name: 'type', value: 'banner' }, file(PNG)]);
    expect(badType.statusCode).toBe(400);
    expect(badType.json().error).toBe(SITE_UPLOAD_MESSAGES.invalidType);

    expect(storedFiles()).toEqual(before);
    expect(await general()).toEqual(settings);
  });

  it('refuses a file over 5 MB with 413 and the French message', async () => {
    const before = storedFiles();
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    const res = await upload(editHeaders, [{ name: 'type', value: 'logo' }, file(big)]);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ success: false, error: SITE_UPLOAD_MESSAGES.tooLarge });
    expect(storedFiles()).toEqual(before);
    // Exactly 5 MB is allowed.
    const limit = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 - PNG.length)]);
    expect((await upload(editHeaders, [{ name: 'type', value: 'logo' }, file(limit)])).statusCode).toBe(200);
  });

  it('serves only generated names from the uploads directory', async () => {
    fs.writeFileSync(path.join(uploadsDir, 'logo-evil.svg'), '<svg><script>alert(1)</script></svg>');
    fs.writeFileSync(path.join(t.ctx.config.dataDir, 'secret.png'), PNG);
    for (const url of [
      '/uploads/logo-evil.svg',
      '/uploads/..%2Fsecret.png',
      '/uploads/%2E%2E%2Fsecret.png',
      '/uploads/logo-missing.png',
      '/uploads/Logo-x.png',
      '/uploads/logo.png',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).not.toContain('image/');
    }
  });
});
