import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RING_FILES_API_PATHS as PATHS, ZUploadFileResponse } from '@securering/contract';
import { encryptName, generateEpochKey, generateFileKey, wrapFileKey } from '@securering/e2ee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../../src/lib/data-dir';
import { storagePaths } from '../../src/lib/storage-paths';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  ringToken,
} from '../factories';
import { fakeCiphertext, multipartBody } from '../ring-files-client';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A multipart body with one text field and one file, as the back office sends an image. */
function imageUpload(type: string, content: Buffer) {
  const boundary = `----securering${randomUUID()}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\n${type}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/**
 * Issue 23: every folder the server writes below DATA_DIR is created, owner-only, before its first
 * use — the app here starts on a data directory that does not exist (its database lives elsewhere,
 * as with PostgreSQL), so nothing was made beforehand.
 */
describe('a server started on an empty DATA_DIR creates each folder it writes (issue 23)', () => {
  let t: TestApp;
  let base: string;
  let dataDir: string;
  const modeOf = (dir: string) => fs.statSync(dir).mode & 0o777;

  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-first-use-'));
    dataDir = path.join(base, 'srv', 'securering');
    prepareDataDir(dataDir);
    expect(fs.readdirSync(dataDir)).toEqual([]);
    t = await buildTestApp({ config: { dataDir } });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('stores a back-office image, a Ring file (simple and resumable) and a backup, each folder 0700', async () => {
    const admin = await buildAdmin(t.ctx, { role: 'super_admin' });
    const root = bearer(await adminToken(t.ctx, admin.id));

    // Back-office image → DATA_DIR/uploads.
    const image = imageUpload('logo', PNG);
    const logo = await t.app.inject({
      method: 'POST',
      url: '/api/admin/upload.php',
      headers: { ...root, ...image.headers },
      payload: image.payload,
    });
    expect(logo.statusCode, logo.body).toBe(200);
    expect(fs.readdirSync(storagePaths.uploads(t.ctx.config))).toHaveLength(1);

    // A Ring file → DATA_DIR/.storage-tmp, then DATA_DIR/ring-files/<ring>/….
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id, { role: 'owner', customer_id: customer.id });
    const headers = bearer(await ringToken(t.ctx, member.id));
    const epochKey = await generateEpochKey({ ringId: ring.id, epoch: 1, level: 'standard' });
    const name = encryptName(epochKey.namesKey, ring.id, 'contrat.pdf');
    const fileField = async (fileId: string) =>
      JSON.stringify(await wrapFileKey(generateFileKey(), epochKey, { ringId: ring.id, fileId }));
    const fileId = randomUUID();
    const body = multipartBody(
      [
        ['folder', ''],
        ['name', name],
        ['original_name', name],
        ['extension', ''],
        ['file_id', fileId],
        ['file_key', await fileField(fileId)],
      ],
      fakeCiphertext(1000),
    );
    const upload = await t.app.inject({
      method: 'POST',
      url: PATHS.upload,
      headers: { ...headers, 'content-type': body.contentType },
      payload: body.payload,
    });
    expect(upload.statusCode, upload.body).toBe(200);
    ZUploadFileResponse.parse(upload.json());

    // A resumable upload → DATA_DIR/tus-uploads, then into the Ring's folder.
    const tusId = randomUUID();
    const tusName = encryptName(epochKey.namesKey, ring.id, 'video.mp4');
    const metadata = Object.entries({
      name: tusName,
      original_name: tusName,
      file_id: tusId,
      file_key: await fileField(tusId),
    })
      .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
      .join(',');
    const content = fakeCiphertext(2000);
    const created = await t.app.inject({
      method: 'POST',
      url: PATHS.tus,
      headers: {
        ...headers,
        'tus-resumable': '1.0.0',
        'upload-length': String(content.length),
        'upload-metadata': metadata,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: created.headers.location as string,
      headers: {
        ...headers,
        'tus-resumable': '1.0.0',
        'upload-offset': '0',
        'content-type': 'application/offset+octet-stream',
      },
      payload: content,
    });
    expect(patched.statusCode, patched.body).toBe(204);
    const ringFolder = storagePaths.ringFiles(t.ctx.config, ring.id);
    const stored = fs
      .readdirSync(ringFolder, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile());
    expect(stored).toHaveLength(2);

    // A backup → DATA_DIR/backups (and its work folder).
    const backup = await t.app.inject({
      method: 'POST',
      url: '/api/admin/backup.php',
      headers: root,
      payload: { action: 'create' },
    });
    expect(backup.statusCode, backup.body).toBe(200);
    expect(fs.readdirSync(storagePaths.backups(t.ctx.config)).filter((n) => n.endsWith('.zip'))).toHaveLength(
      1,
    );

    // Every folder the server made is owner-only, down to each Ring's sub-folders.
    const made = fs
      .readdirSync(dataDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(e.parentPath, e.name));
    for (const folder of [
      storagePaths.uploads(t.ctx.config),
      storagePaths.storageTemp(t.ctx.config),
      storagePaths.allRingFiles(t.ctx.config),
      ringFolder,
      storagePaths.tusUploads(t.ctx.config),
      storagePaths.backups(t.ctx.config),
    ])
      expect(made).toContain(folder);
    for (const folder of made) expect({ folder, mode: modeOf(folder) }).toEqual({ folder, mode: 0o700 });
    for (const folder of [dataDir, path.join(base, 'srv')]) expect(modeOf(folder)).toBe(0o700);
  });
});
