import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
  MESSAGES,
  RING_FILES_API_PATHS as PATHS,
  RING_FILES_MESSAGES as M,
  ZListFilesResponse,
  ZRenameFileResponse,
  ZUploadFileResponse,
  encryptedFileSize,
  maxEncryptedFileBytes,
  type TFilesChanged,
} from '@securering/contract';
import {
  decryptName,
  decryptStream,
  encryptName,
  encryptStream,
  generateEpochKey,
  generateFileKey,
  unwrapFileKey,
  wrapFileKey,
  type EpochKey,
} from '@securering/e2ee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { storagePaths } from '../../src/lib/storage-paths';
import { directorySize } from '../../src/modules/admin-stats/disk-usage';
import { purgeAbandonedUploads, tusRequestContextEnabled } from '../../src/modules/ring-files/ring-files.tus';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  customerToken,
  ringToken,
} from '../factories';
import {
  fakeCiphertext,
  fakeCiphertextStream,
  multipartBody,
  multipartFrame,
  rawRequest,
  sha256,
  streamDownload,
} from '../ring-files-client';
import { startTestS3, type TestS3 } from '../s3-server';
import { connectSocket, listen, type TestSocket } from '../socket-client';

const MIB = 1024 * 1024;

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Everything one Ring of a test needs: members by role, their bearers, the Ring's keys. */
interface RingFixture {
  ringId: string;
  customerId: string;
  owner: { id: string; headers: Record<string, string> };
  admin: { id: string; headers: Record<string, string> };
  member: { id: string; headers: Record<string, string> };
  other: { id: string; headers: Record<string, string> };
  epochKey: EpochKey;
  /** Encrypts a file or folder name as the browser does. */
  name(label: string): string;
  path(...labels: string[]): string;
}

describe.each(['local', 's3'] as const)('the Ring file space on %s storage (issue 12)', (kind) => {
  let t: TestApp;
  let s3: TestS3 | undefined;
  let baseUrl: string;
  const clock = new ManualClock('2026-11-24T10:00:00.000Z');
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    s3 = kind === 's3' ? await startTestS3() : undefined;
    t = await buildTestApp({ clock, config: s3 ? { storage: s3.config } : {} });
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
    await s3?.close();
  });

  async function ringFixture(
    overrides: { storage_quota_bytes?: number; max_file_size_mb?: number; plan_slug?: string } = {},
  ): Promise<RingFixture> {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id, overrides);
    const person = async (role: 'owner' | 'admin' | 'member') => {
      const m = await buildRingMember(t.ctx, ring.id, {
        role,
        ...(role === 'owner' ? { customer_id: customer.id } : {}),
      });
      return { id: m.id, headers: bearer(await ringToken(t.ctx, m.id)) };
    };
    const epochKey = await generateEpochKey({ ringId: ring.id, epoch: 1, level: 'standard' });
    const name = (label: string) => encryptName(epochKey.namesKey, ring.id, label);
    return {
      ringId: ring.id,
      customerId: customer.id,
      owner: await person('owner'),
      admin: await person('admin'),
      member: await person('member'),
      other: await person('member'),
      epochKey,
      name,
      path: (...labels) => labels.map(name).join('/'),
    };
  }

  const wrappedKey = async (r: RingFixture, fileId: string, fileKey = generateFileKey()) =>
    JSON.stringify(await wrapFileKey(fileKey, r.epochKey, { ringId: r.ringId, fileId }));

  /** Fields as the browser sends them, before the file part. */
  async function uploadFields(
    r: RingFixture,
    label: string,
    options: { folder?: string; fileId?: string; size?: number } = {},
  ): Promise<Array<[string, string]>> {
    const fileId = options.fileId ?? randomUUID();
    const fields: Array<[string, string]> = [
      ['folder', options.folder ?? ''],
      ['name', r.name(label)],
      ['original_name', r.name(label)],
      ['extension', ''],
      ['file_id', fileId],
      ['file_key', await wrappedKey(r, fileId)],
    ];
    if (options.size !== undefined) fields.push(['size', String(options.size)]);
    return fields;
  }

  function inject(method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) {
    return t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  }

  async function upload(
    r: RingFixture,
    who: { headers: Record<string, string> },
    content: Buffer,
    label = `fichier-${randomBytes(3).toString('hex')}.bin`,
    options: { folder?: string; fileId?: string; size?: number } = {},
  ) {
    const { payload, contentType } = multipartBody(await uploadFields(r, label, options), content);
    return t.app.inject({
      method: 'POST',
      url: PATHS.upload,
      headers: { ...who.headers, 'content-type': contentType },
      payload,
    });
  }

  async function uploaded(
    r: RingFixture,
    who: { headers: Record<string, string> },
    content: Buffer,
    label?: string,
    folder?: string,
  ) {
    const res = await upload(r, who, content, label, folder === undefined ? {} : { folder });
    expect(res.statusCode, res.body).toBe(200);
    return ZUploadFileResponse.parse(res.json()).file;
  }

  async function list(r: RingFixture, who: { headers: Record<string, string> }, folder = '') {
    const res = await inject('GET', `${PATHS.list}?folder=${encodeURIComponent(folder)}`, who.headers);
    expect(res.statusCode, res.body).toBe(200);
    return ZListFilesResponse.parse(res.json());
  }

  async function objectsOf(ringId: string) {
    const found = [];
    for await (const object of t.ctx.storage.list(`${ringId}/`)) found.push(object);
    return found;
  }

  function filesUnder(dir: string): string[] {
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  }

  /** A refused upload left nothing: no row, no reservation, no object, no temporary file. */
  async function expectNothingStored(r: RingFixture) {
    const rows = await t.ctx.db
      .selectFrom('ring_files')
      .select('id')
      .where('ring_id', '=', r.ringId)
      .execute();
    expect(rows).toEqual([]);
    const reservations = await t.ctx.db
      .selectFrom('ring_upload_reservations')
      .select('id')
      .where('ring_id', '=', r.ringId)
      .execute();
    expect(reservations).toEqual([]);
    expect(await objectsOf(r.ringId)).toEqual([]);
    expect(filesUnder(storagePaths.storageTemp(t.ctx.config))).toEqual([]);
    expect(filesUnder(path.join(storagePaths.allRingFiles(t.ctx.config), r.ringId))).toEqual([]);
  }

  // ---------------------------------------------------------------------------------------------

  it('stores what a member uploads and serves it back to another member, encrypted end to end', async () => {
    const r = await ringFixture();
    const plain = Buffer.from('Contenu confidentiel : canari-7f3a9 ' + 'x'.repeat(200_000));
    const fileKey = generateFileKey();
    const cipher = Buffer.from(
      await new Response(encryptStream(new Blob([plain]).stream(), fileKey)).arrayBuffer(),
    );
    const fileId = randomUUID();
    const fields: Array<[string, string]> = [
      ['name', r.name('Contrat canari-7f3a9.pdf')],
      ['original_name', r.name('Contrat canari-7f3a9.pdf')],
      ['extension', r.name('pdf')],
      ['file_id', fileId],
      ['file_key', await wrappedKey(r, fileId, fileKey)],
    ];
    const { payload, contentType } = multipartBody(fields, cipher);
    const res = await t.app.inject({
      method: 'POST',
      url: PATHS.upload,
      headers: { ...r.member.headers, 'content-type': contentType },
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = ZUploadFileResponse.parse(res.json());
    expect(body.message).toBe('1 fichier(s) uploadé(s)');
    expect(body.file).toMatchObject({
      id: fileId,
      size_bytes: cipher.length,
      folder: '',
      key_epoch: 1,
      can_manage: true,
    });

    // Another member lists it, decrypts the name and the content.
    const listed = await list(r, r.other);
    expect(listed.files.map((f) => f.id)).toEqual([fileId]);
    const file = listed.files[0]!;
    expect(file.can_manage).toBe(false);
    expect(decryptName(r.epochKey.namesKey, r.ringId, file.name)).toBe('Contrat canari-7f3a9.pdf');
    expect(decryptName(r.epochKey.namesKey, r.ringId, file.extension)).toBe('pdf');
    const download = await inject('GET', `${PATHS.download}?id=${fileId}`, r.other.headers);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/octet-stream');
    expect(download.headers['content-length']).toBe(String(cipher.length));
    expect(download.headers['x-file-key']).toBe(JSON.stringify(file.file_key));
    expect(download.rawPayload.equals(cipher)).toBe(true);
    const unwrapped = await unwrapFileKey(file.file_key!, r.epochKey, { ringId: r.ringId, fileId });
    const decrypted = Buffer.from(
      await new Response(decryptStream(new Blob([download.rawPayload]).stream(), unwrapped)).arrayBuffer(),
    );
    expect(sha256(decrypted)).toBe(sha256(plain));

    // Nothing readable reached the database or the storage.
    const rows = JSON.stringify(
      await t.ctx.db.selectFrom('ring_files').selectAll().where('ring_id', '=', r.ringId).execute(),
    );
    expect(rows).not.toContain('canari');
    expect(rows).not.toContain('pdf');
    const objects = await objectsOf(r.ringId);
    expect(objects).toHaveLength(1);
    expect(objects[0]!.size).toBe(cipher.length);
    expect(objects[0]!.key).not.toContain(fileId);
    const stored = await readAll(await t.ctx.storage.get(objects[0]!.key));
    expect(stored.equals(cipher)).toBe(true);
    expect(stored.includes(Buffer.from('canari'))).toBe(false);
  });

  it('serves byte ranges for resumed and streamed downloads', async () => {
    const r = await ringFixture();
    const cipher = fakeCiphertext(300_000);
    const file = await uploaded(r, r.member, cipher);
    const get = (range: string, extra: Record<string, string> = {}) =>
      inject('GET', `${PATHS.download}?id=${file.id}`, { ...r.member.headers, range, ...extra });

    const middle = await get('bytes=100-199');
    expect(middle.statusCode).toBe(206);
    expect(middle.headers['content-range']).toBe(`bytes 100-199/${cipher.length}`);
    expect(middle.rawPayload.equals(cipher.subarray(100, 200))).toBe(true);
    const rest = await get(`bytes=${cipher.length - 1000}-`);
    expect(rest.statusCode).toBe(206);
    expect(rest.rawPayload.equals(cipher.subarray(cipher.length - 1000))).toBe(true);
    const suffix = await get('bytes=-10');
    expect(suffix.rawPayload.equals(cipher.subarray(cipher.length - 10))).toBe(true);
    const past = await get(`bytes=${cipher.length}-`);
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${cipher.length}`);
    expect(past.json().error).toBe(M.rangeNotSatisfiable);
    // A range for another version of the file: the whole file.
    const stale = await get('bytes=0-9', { 'if-range': '"autre"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(cipher)).toBe(true);
    const same = await get('bytes=0-9', { 'if-range': `"${file.id}"` });
    expect(same.statusCode).toBe(206);
    const head = await t.app.inject({
      method: 'HEAD',
      url: `${PATHS.download}?id=${file.id}`,
      headers: r.member.headers,
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(cipher.length));
    expect(head.rawPayload.length).toBe(0);
  });

  // ---- quota and size ---------------------------------------------------------------------

  /** A real-socket upload of an SRF1-shaped file of `plainBytes`, as the test describes. */
  async function rawUpload(
    r: RingFixture,
    plainBytes: number,
    options: {
      contentLength?: boolean;
      declare?: boolean;
      stopAfterFileBytes?: number;
      timeoutMs?: number;
    } = {},
  ) {
    const content = fakeCiphertextStream(plainBytes);
    const fields = await uploadFields(r, 'gros.bin', options.declare ? { size: content.size } : {});
    const frame = multipartFrame(fields);
    const total = frame.head.length + content.size + frame.tail.length;
    const body = (function* () {
      yield frame.head;
      yield* content.chunks();
      yield frame.tail;
    })();
    const res = await rawRequest(`${baseUrl}${PATHS.upload}`, {
      headers: { ...r.member.headers, 'content-type': frame.contentType },
      body,
      contentLength: options.contentLength === false ? false : total,
      ...(options.stopAfterFileBytes !== undefined
        ? { stopAfter: frame.head.length + options.stopAfterFileBytes }
        : {}),
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    return { res, content };
  }

  it('refuses a file over the quota or the size limit before reading it, from its length, storing nothing', async () => {
    const small = await ringFixture({ storage_quota_bytes: MIB });
    // Only the first 64 KiB are ever sent: an answer proves the refusal came before the rest.
    const quota = await rawUpload(small, 2 * MIB, { stopAfterFileBytes: 64 * 1024, timeoutMs: 10_000 });
    expect(quota.res.status).toBe(413);
    expect(quota.res.json()).toEqual({ success: false, error: M.quotaExceeded });
    // The unread rest of the body is not drained: the connection closes after the answer.
    expect(quota.res.headers.connection).toBe('close');
    await expectNothingStored(small);

    const capped = await ringFixture({ max_file_size_mb: 1 });
    const size = await rawUpload(capped, 3 * MIB, { stopAfterFileBytes: 64 * 1024, timeoutMs: 10_000 });
    expect(size.res.status).toBe(413);
    expect(size.res.json().error).toBe('Fichier trop volumineux\u202f: 1 Mo maximum dans ce Ring');
    await expectNothingStored(capped);

    // Without a length, the announced size is refused before the file's bytes are read.
    const declared = await rawUpload(small, 2 * MIB, {
      contentLength: false,
      declare: true,
      stopAfterFileBytes: 64 * 1024,
      timeoutMs: 10_000,
    });
    expect(declared.res.status).toBe(413);
    expect(declared.res.json().error).toBe(M.quotaExceeded);
    await expectNothingStored(small);
  });

  it('stops an upload sent without any length as soon as it passes the quota or the size limit', async () => {
    const small = await ringFixture({ storage_quota_bytes: MIB });
    const quota = await rawUpload(small, 2 * MIB, { contentLength: false });
    expect(quota.res.status).toBe(413);
    expect(quota.res.json().error).toBe(M.quotaExceeded);
    await expectNothingStored(small);

    const capped = await ringFixture({ max_file_size_mb: 1 });
    const size = await rawUpload(capped, 2 * MIB, { contentLength: false });
    expect(size.res.status).toBe(413);
    expect(size.res.json().error).toBe('Fichier trop volumineux\u202f: 1 Mo maximum dans ce Ring');
    await expectNothingStored(capped);

    // A file of exactly the limit (1 Mo of content, encrypted) is accepted, one byte more is not.
    const exact = await rawUpload(capped, MIB, { contentLength: false });
    expect(exact.res.status, exact.res.body.toString()).toBe(200);
    expect(exact.res.json().file.size_bytes).toBe(maxEncryptedFileBytes(1));
    const over = await upload(capped, capped.member, fakeCiphertext(MIB + 1));
    expect(over.statusCode).toBe(413);
  });

  it('never lets concurrent uploads overshoot the quota together', async () => {
    const fileBytes = encryptedFileSize(400 * 1024);
    const r = await ringFixture({ storage_quota_bytes: 3 * fileBytes + 1000 });
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const attempts = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const content = fakeCiphertext(400 * 1024);
        const fields = await uploadFields(r, `parallele-${i}.bin`, { size: content.length });
        const frame = multipartFrame(fields);
        const body = (async function* () {
          yield frame.head;
          yield content.subarray(0, 1000);
          started += 1;
          if (started === 6) release();
          await barrier;
          yield content.subarray(1000);
          yield frame.tail;
        })();
        return rawRequest(`${baseUrl}${PATHS.upload}`, {
          headers: { ...r.member.headers, 'content-type': frame.contentType },
          body,
          contentLength: false,
        });
      }),
    );
    const accepted = attempts.filter((a) => a.status === 200);
    const refused = attempts.filter((a) => a.status !== 200);
    expect(accepted).toHaveLength(3);
    for (const a of refused) expect(a.json()).toEqual({ success: false, error: M.quotaExceeded });
    const used = (await list(r, r.member)).storage;
    expect(used.used).toBe(3 * fileBytes);
    expect(used.used).toBeLessThanOrEqual(used.allocated);
    expect(await objectsOf(r.ringId)).toHaveLength(3);
    const reservations = await t.ctx.db
      .selectFrom('ring_upload_reservations')
      .select('id')
      .where('ring_id', '=', r.ringId)
      .execute();
    expect(reservations).toEqual([]);
  });

  it('refuses content that was not encrypted by the browser, and bad fields, storing nothing', async () => {
    const r = await ringFixture();
    const plain = await upload(r, r.member, Buffer.from('Bonjour, ceci est un texte en clair. '.repeat(100)));
    expect(plain.statusCode).toBe(400);
    expect(plain.json().error).toBe(M.notEncrypted);
    // The right header but a length no SRF1 file has.
    const truncated = await upload(r, r.member, Buffer.concat([fakeCiphertext(65_536), randomBytes(16)]));
    expect(truncated.statusCode, truncated.body).toBe(400);
    expect(truncated.json().error).toBe(M.notEncrypted);

    const content = fakeCiphertext(1000);
    const send = (fields: Array<[string, string]>, after: Array<[string, string]> = []) => {
      const { payload, contentType } = multipartBody(fields, content, after);
      return t.app.inject({
        method: 'POST',
        url: PATHS.upload,
        headers: { ...r.member.headers, 'content-type': contentType },
        payload,
      });
    };
    const fileId = randomUUID();
    const key = await wrappedKey(r, fileId);
    const clearName = await send([
      ['name', 'photo.jpg'],
      ['file_id', fileId],
      ['file_key', key],
    ]);
    expect(clearName.statusCode).toBe(400);
    expect(clearName.json().error).toBe(M.invalidName);
    const noFolder = await send([
      ['folder', r.name('Inexistant')],
      ['name', r.name('a.txt')],
      ['file_key', key],
    ]);
    expect(noFolder.statusCode).toBe(404);
    expect(noFolder.json().error).toBe(M.folderNotFound);
    const noKey = await send([['name', r.name('a.txt')]]);
    expect(noKey.statusCode).toBe(400);
    expect(noKey.json().error).toBe(M.fileKeyMissing);
    const badKey = await send([
      ['name', r.name('a.txt')],
      ['file_key', '{"v":1,"epoch":1}'],
    ]);
    expect(badKey.json().error).toBe(M.invalidFileKey);
    const badId = await send([
      ['name', r.name('a.txt')],
      ['file_id', '123'],
      ['file_key', key],
    ]);
    expect(badId.json().error).toBe(M.invalidFileId);
    const { payload, contentType } = multipartBody([['name', r.name('a.txt')]], Buffer.alloc(0));
    const noFile = await t.app.inject({
      method: 'POST',
      url: PATHS.upload,
      headers: { ...r.member.headers, 'content-type': contentType.replace('boundary', 'boundary') },
      payload: payload.toString('latin1').replace('name="file"', 'name="autre"'),
    });
    expect(noFile.statusCode).toBe(400);
    expect(noFile.json().error).toBe(M.fileMissing);
    const notMultipart = await inject('POST', PATHS.upload, r.member.headers, { name: 'x' });
    expect(notMultipart.json()).toEqual({ success: false, error: M.fileMissing });
    await expectNothingStored(r);

    // Fields sent after the file are taken too (the spec sends the folder as an optional field).
    const late = await send(
      [],
      [
        ['name', r.name('tard.txt')],
        ['file_id', fileId],
        ['file_key', key],
      ],
    );
    expect(late.statusCode, late.body).toBe(200);
    expect(late.json().file.id).toBe(fileId);
    // The id is the file's for good: another upload with it is refused, and leaves nothing.
    const again = await send([
      ['name', r.name('b.txt')],
      ['file_id', fileId],
      ['file_key', key],
    ]);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe(M.fileIdTaken);
    expect(await objectsOf(r.ringId)).toHaveLength(1);
  });

  // ---- rights ------------------------------------------------------------------------------

  it('lets a member rename and delete its own files only, and the owner and Ring admins all files', async () => {
    const r = await ringFixture();
    const mine = await uploaded(r, r.member, fakeCiphertext(5000), 'mien.txt');
    const theirs = await uploaded(r, r.other, fakeCiphertext(5000), 'autre.txt');
    const rename = (who: { headers: Record<string, string> }, id: string, label: string) =>
      inject('POST', PATHS.rename, who.headers, { id, new_name: label === '' ? '   ' : r.name(label) });

    const own = await rename(r.member, mine.id, 'renommé.txt');
    expect(own.statusCode).toBe(200);
    const ownBody = ZRenameFileResponse.parse(own.json());
    expect(ownBody).toMatchObject({ changed: true, message: 'Nom mis à jour' });
    expect(decryptName(r.epochKey.namesKey, r.ringId, ownBody.file.name)).toBe('renommé.txt');
    const foreign = await rename(r.member, theirs.id, 'volé.txt');
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error).toBe(M.ownFilesOnly);
    expect((await inject('POST', PATHS.delete, r.member.headers, { id: theirs.id })).statusCode).toBe(403);
    expect((await list(r, r.other)).files.find((f) => f.id === theirs.id)?.name).toBe(r.name('autre.txt'));

    // Blank or unchanged: nothing changes (spec 2 §5).
    const before = await t.ctx.db
      .selectFrom('ring_files')
      .selectAll()
      .where('id', '=', mine.id)
      .executeTakeFirstOrThrow();
    for (const label of ['', 'renommé.txt']) {
      const res = await rename(r.member, mine.id, label);
      expect(res.json()).toMatchObject({ success: true, changed: false });
    }
    expect(
      await t.ctx.db.selectFrom('ring_files').selectAll().where('id', '=', mine.id).executeTakeFirstOrThrow(),
    ).toEqual(before);

    expect((await rename(r.admin, theirs.id, 'par-admin.txt')).statusCode).toBe(200);
    expect((await rename(r.owner, mine.id, 'par-proprio.txt')).statusCode).toBe(200);
    expect((await list(r, r.admin)).files.every((f) => f.can_manage)).toBe(true);

    const objectsBefore = await objectsOf(r.ringId);
    const removed = await inject('POST', PATHS.delete, r.owner.headers, { id: theirs.id });
    expect(removed.json()).toEqual({ success: true, message: 'Supprimé' });
    expect((await inject('POST', PATHS.delete, r.member.headers, { id: mine.id })).statusCode).toBe(200);
    expect((await list(r, r.member)).files).toEqual([]);
    expect(objectsBefore).toHaveLength(2);
    expect(await objectsOf(r.ringId)).toEqual([]);
    const gone = await inject('GET', `${PATHS.download}?id=${mine.id}`, r.member.headers);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe(M.fileNotFound);
  });

  it('applies the folder rules: create, list, move with their content, delete only when empty', async () => {
    const r = await ringFixture();
    const mkdir = (who: { headers: Record<string, string> }, parent: string, label: string) =>
      inject('POST', PATHS.mkdir, who.headers, { parent, name: r.name(label) });
    const docs = r.path('Documents');
    const year = r.path('Documents', '2026');

    expect((await mkdir(r.admin, '', 'Documents')).json()).toEqual({
      success: true,
      folder: docs,
      message: 'Dossier créé',
    });
    expect((await mkdir(r.member, docs, '2026')).statusCode).toBe(200);
    const dup = await mkdir(r.member, '', 'Documents');
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe(M.folderExists);
    const orphan = await mkdir(r.member, r.path('Nulle part'), 'x');
    expect(orphan.statusCode).toBe(404);
    expect(orphan.json().error).toBe(M.parentNotFound);
    expect(
      (await inject('POST', PATHS.mkdir, r.member.headers, { parent: '', name: 'Documents' })).json().error,
    ).toBe(M.invalidName);

    const root = await list(r, r.member);
    expect(root.folders.map((f) => f.path)).toEqual([docs]);
    expect(root.folders[0]).toMatchObject({ name: r.name('Documents'), can_manage: false });
    expect((await list(r, r.member, docs)).folders.map((f) => f.path)).toEqual([year]);
    const notThere = await inject('GET', `${PATHS.list}?folder=${r.path('Absent')}`, r.member.headers);
    expect(notThere.statusCode).toBe(404);

    const file = await uploaded(r, r.member, fakeCiphertext(2000), 'bilan.txt', year);
    expect(file.folder).toBe(year);
    expect((await list(r, r.member, year)).files.map((f) => f.id)).toEqual([file.id]);

    // Renaming moves the subfolders and their files.
    const archives = r.path('Archives');
    const renameFolder = (who: { headers: Record<string, string> }, old_path: string, new_path: string) =>
      inject('POST', PATHS.renameFolder, who.headers, { old_path, new_path });
    const refused = await renameFolder(r.member, docs, archives);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe(M.ownFoldersOnly);
    expect((await renameFolder(r.admin, docs, '  ')).json()).toMatchObject({ changed: false, folder: docs });
    expect((await renameFolder(r.admin, docs, docs)).json()).toMatchObject({ changed: false });
    expect((await renameFolder(r.admin, docs, `${year}/${r.name('x')}`)).json().error).toBe(
      M.folderIntoItself,
    );
    expect((await mkdir(r.admin, '', 'Occupé')).statusCode).toBe(200);
    expect((await renameFolder(r.admin, docs, r.path('Occupé'))).json().error).toBe(M.folderExists);
    expect((await renameFolder(r.admin, docs, r.path('Nulle', 'part'))).json().error).toBe(M.parentNotFound);
    const moved = await renameFolder(r.admin, docs, archives);
    expect(moved.json()).toEqual({
      success: true,
      changed: true,
      folder: archives,
      message: 'Dossier renommé',
    });
    const movedYear = `${archives}/${r.name('2026')}`;
    expect((await list(r, r.member, archives)).folders.map((f) => f.path)).toEqual([movedYear]);
    expect((await list(r, r.member, movedYear)).files.map((f) => [f.id, f.folder])).toEqual([
      [file.id, movedYear],
    ]);
    expect((await inject('GET', `${PATHS.list}?folder=${docs}`, r.member.headers)).statusCode).toBe(404);
    expect((await list(r, r.member)).folders.map((f) => f.path).sort()).toEqual(
      [archives, r.path('Occupé')].sort(),
    );

    // Only empty folders are deleted.
    const notEmpty = await inject('POST', PATHS.rmdir, r.admin.headers, { folder: archives });
    expect(notEmpty.statusCode).toBe(409);
    expect(notEmpty.json().error).toContain('doit être vide');
    const stillFile = await inject('POST', PATHS.rmdir, r.member.headers, { folder: movedYear });
    expect(stillFile.json().error).toContain('doit être vide');
    expect((await inject('POST', PATHS.delete, r.member.headers, { id: file.id })).statusCode).toBe(200);
    // The member created "2026": it may delete it; "Archives" is the admin's.
    expect((await inject('POST', PATHS.rmdir, r.member.headers, { folder: movedYear })).json()).toEqual({
      success: true,
      message: 'Dossier supprimé',
    });
    expect((await inject('POST', PATHS.rmdir, r.member.headers, { folder: archives })).statusCode).toBe(403);
    expect((await inject('POST', PATHS.rmdir, r.owner.headers, { folder: archives })).statusCode).toBe(200);
    expect((await inject('POST', PATHS.rmdir, r.owner.headers, { folder: archives })).statusCode).toBe(404);
    expect((await list(r, r.member)).folders.map((f) => f.path)).toEqual([r.path('Occupé')]);
  });

  it('keeps every Ring to itself, and answers 401 to other audiences and to no or unknown tokens', async () => {
    const a = await ringFixture();
    const b = await ringFixture();
    const file = await uploaded(a, a.member, fakeCiphertext(3000), 'secret-a.txt');
    expect(await mkdirOk(a, 'Dossier-A')).toBeDefined();

    const seen = await list(b, b.member);
    expect(seen.files).toEqual([]);
    expect(seen.folders).toEqual([]);
    const leaks = [file.id, file.name, a.name('Dossier-A')];
    const calls = [
      inject('GET', `${PATHS.download}?id=${file.id}`, b.admin.headers),
      inject('POST', PATHS.rename, b.owner.headers, { id: file.id, new_name: b.name('x.txt') }),
      inject('POST', PATHS.delete, b.owner.headers, { id: file.id }),
      inject('POST', PATHS.renameFolder, b.owner.headers, {
        old_path: a.name('Dossier-A'),
        new_path: b.name('y'),
      }),
      inject('POST', PATHS.rmdir, b.owner.headers, { folder: a.name('Dossier-A') }),
      inject('GET', `${PATHS.list}?folder=${a.name('Dossier-A')}`, b.owner.headers),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.statusCode).toBe(404);
      for (const leak of leaks) expect(res.body).not.toContain(leak);
    }
    // The file and folder are untouched.
    expect((await list(a, a.member)).files.map((f) => [f.id, f.name])).toEqual([[file.id, file.name]]);

    const admin = await buildAdmin(t.ctx, { role: 'super_admin' });
    const audiences: Array<[Record<string, string>, string]> = [
      [{}, MESSAGES.notAuthenticated],
      [bearer('inconnu'), MESSAGES.sessionExpired],
      [bearer(await customerToken(t.ctx, a.customerId)), MESSAGES.sessionExpired],
      [bearer(await adminToken(t.ctx, admin.id)), MESSAGES.sessionExpired],
    ];
    for (const [headers, error] of audiences) {
      const responses = await Promise.all([
        inject('GET', PATHS.list, headers),
        inject('GET', `${PATHS.download}?id=${file.id}`, headers),
        inject('POST', PATHS.rename, headers, { id: file.id, new_name: a.name('z') }),
        inject('POST', PATHS.delete, headers, { id: file.id }),
        inject('POST', PATHS.mkdir, headers, { parent: '', name: a.name('z') }),
        inject('POST', PATHS.renameFolder, headers, { old_path: a.name('Dossier-A'), new_path: a.name('z') }),
        inject('POST', PATHS.rmdir, headers, { folder: a.name('Dossier-A') }),
        t.app.inject({ method: 'POST', url: PATHS.upload, headers }),
        t.app.inject({
          method: 'POST',
          url: PATHS.tus,
          headers: { ...headers, 'tus-resumable': '1.0.0', 'upload-length': '100' },
        }),
      ]);
      for (const res of responses) {
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ success: false, error });
        for (const leak of leaks) expect(res.body).not.toContain(leak);
      }
    }
    expect((await list(a, a.member)).files).toHaveLength(1);
  });

  async function mkdirOk(r: RingFixture, label: string): Promise<string> {
    const res = await inject('POST', PATHS.mkdir, r.admin.headers, { parent: '', name: r.name(label) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().folder as string;
  }

  it('answers 403 with an explanation on every call of a Ring whose plan has no file sharing', async () => {
    const r = await ringFixture({ plan_slug: 'starter' });
    const id = randomUUID();
    const { payload, contentType } = multipartBody(await uploadFields(r, 'a.txt'), fakeCiphertext(100));
    const responses = await Promise.all([
      inject('GET', PATHS.list, r.owner.headers),
      t.app.inject({
        method: 'POST',
        url: PATHS.upload,
        headers: { ...r.owner.headers, 'content-type': contentType },
        payload,
      }),
      inject('GET', `${PATHS.download}?id=${id}`, r.owner.headers),
      inject('POST', PATHS.rename, r.owner.headers, { id, new_name: r.name('b') }),
      inject('POST', PATHS.delete, r.owner.headers, { id }),
      inject('POST', PATHS.mkdir, r.owner.headers, { parent: '', name: r.name('c') }),
      inject('POST', PATHS.renameFolder, r.owner.headers, { old_path: r.name('c'), new_path: r.name('d') }),
      inject('POST', PATHS.rmdir, r.owner.headers, { folder: r.name('c') }),
      inject('POST', PATHS.move, r.owner.headers, { id, folder: '', meta: 'x', meta_version: 2 }),
      inject('GET', PATHS.folders, r.owner.headers),
      t.app.inject({
        method: 'POST',
        url: PATHS.tus,
        headers: { ...r.owner.headers, 'tus-resumable': '1.0.0', 'upload-length': '100' },
      }),
      t.app.inject({
        method: 'HEAD',
        url: `${PATHS.tus}/${id}`,
        headers: { ...r.owner.headers, 'tus-resumable': '1.0.0' },
      }),
    ]);
    for (const res of responses) {
      expect(res.statusCode).toBe(403);
      if (res.body) expect(res.json()).toEqual({ success: false, error: M.fileSharingNotInPlan });
    }
    await expectNothingStored(r);
    const folders = await t.ctx.db
      .selectFrom('ring_folders')
      .select('id')
      .where('ring_id', '=', r.ringId)
      .execute();
    expect(folders).toEqual([]);
  });

  // ---- realtime, statistics, deletion ------------------------------------------------------

  it('tells the other members of the Ring to refresh after every change', async () => {
    const r = await ringFixture();
    const outsider = await ringFixture();
    const socketOf = async (ringId: string, headers: Record<string, string>) => {
      const minted = await inject('POST', '/api/rings/mint-stream-token.php', headers);
      const socket = await connectSocket(baseUrl, minted.json().stream_token as string);
      sockets.push(socket);
      expect(await socket.emitWithAck('join_ring', { ringId })).toEqual({ ok: true, ringId });
      const events: TFilesChanged[] = [];
      socket.on('files_changed', (e) => events.push(e));
      return events;
    };
    const events = await socketOf(r.ringId, r.other.headers);
    const outsiderEvents = await socketOf(outsider.ringId, outsider.member.headers);

    const folder = await mkdirOk(r, 'Partagé');
    const file = await uploaded(r, r.member, fakeCiphertext(1000), 'a.txt', folder);
    await inject('POST', PATHS.rename, r.member.headers, { id: file.id, new_name: r.name('b.txt') });
    await inject('POST', PATHS.delete, r.member.headers, { id: file.id });
    const renamed = r.path('Renommé');
    await inject('POST', PATHS.renameFolder, r.admin.headers, { old_path: folder, new_path: renamed });
    await inject('POST', PATHS.rmdir, r.admin.headers, { folder: renamed });
    await expect.poll(() => events.length).toBe(6);
    expect(events).toEqual([
      { ringId: r.ringId, folder: '' },
      { ringId: r.ringId, folder },
      { ringId: r.ringId, folder },
      { ringId: r.ringId, folder },
      { ringId: r.ringId, folder: '' },
      { ringId: r.ringId, folder: '' },
    ]);
    expect(outsiderEvents).toEqual([]);
  });

  it('counts stored bytes in the customer statistics and the admin disk figure', async () => {
    const r = await ringFixture();
    const file = await uploaded(r, r.member, fakeCiphertext(8 * MIB), 'gros.bin');
    const stats = await inject(
      'GET',
      `/api/customer/ring-stats.php?ring_id=${r.ringId}`,
      bearer(await customerToken(t.ctx, r.customerId)),
    );
    expect(stats.statusCode, stats.body).toBe(200);
    expect(stats.json().data.storage.used).toBe(file.size_bytes);
    expect((await list(r, r.member)).storage.used).toBe(file.size_bytes);

    const admin = await buildAdmin(t.ctx, { role: 'super_admin' });
    const adminStats = await inject('GET', '/api/admin/stats.php', bearer(await adminToken(t.ctx, admin.id)));
    expect(adminStats.statusCode).toBe(200);
    const storageUsed = adminStats.json().data.storageUsed as number;
    expect(storageUsed).toBeGreaterThanOrEqual(file.size_bytes);
    // On S3 the file is not under DATA_DIR: the figure adds what the bucket holds.
    if (kind === 's3')
      expect(storageUsed - (await directorySize(t.ctx.config.dataDir))).toBeGreaterThanOrEqual(
        file.size_bytes,
      );
  });

  it('removes the stored objects of a deleted customer’s Rings', async () => {
    const r = await ringFixture();
    const other = await ringFixture();
    await uploaded(r, r.member, fakeCiphertext(4000));
    await uploaded(r, r.admin, fakeCiphertext(4000));
    await uploaded(other, other.member, fakeCiphertext(4000));
    expect(await objectsOf(r.ringId)).toHaveLength(2);
    const admin = await buildAdmin(t.ctx, { role: 'super_admin' });
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/api/admin/customers.php',
      headers: bearer(await adminToken(t.ctx, admin.id)),
      payload: { id: r.customerId },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await objectsOf(r.ringId)).toEqual([]);
    expect(await objectsOf(other.ringId)).toHaveLength(1);
  });

  // ---- resumable uploads (tus) ---------------------------------------------------------------

  const TUS = { 'tus-resumable': '1.0.0' };

  async function tusMetadata(r: RingFixture, label: string, extra: Record<string, string> = {}) {
    const fileId = randomUUID();
    const fields: Record<string, string> = {
      name: r.name(label),
      original_name: r.name(label),
      file_id: fileId,
      file_key: await wrappedKey(r, fileId),
      ...extra,
    };
    const header = Object.entries(fields)
      .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
      .join(',');
    return { fileId, header };
  }

  async function tusCreate(
    r: RingFixture,
    who: { headers: Record<string, string> },
    length: number,
    label = 'video.mp4',
  ) {
    const meta = await tusMetadata(r, label);
    const res = await t.app.inject({
      method: 'POST',
      url: PATHS.tus,
      headers: { ...who.headers, ...TUS, 'upload-length': String(length), 'upload-metadata': meta.header },
    });
    return { res, fileId: meta.fileId, location: res.headers.location as string | undefined };
  }

  const tusDirFiles = () => filesUnder(storagePaths.tusUploads(t.ctx.config));

  function* pieces(data: Buffer, size = 64 * 1024) {
    for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
  }

  it('resumes an interrupted tus upload from its offset and completes it with the same bytes', async () => {
    const r = await ringFixture();
    const content = fakeCiphertext(3 * MIB);
    const created = await tusCreate(r, r.member, content.length);
    expect(created.res.statusCode, created.res.body).toBe(201);
    expect(created.location).toMatch(new RegExp(`^${PATHS.tus}/[0-9a-f-]{36}$`));
    const url = `${baseUrl}${created.location}`;
    const patchHeaders = (offset: number) => ({
      ...r.member.headers,
      ...TUS,
      'upload-offset': String(offset),
      'content-type': 'application/offset+octet-stream',
    });

    // The connection drops after about 1.2 MB.
    await rawRequest(url, {
      method: 'PATCH',
      headers: patchHeaders(0),
      body: pieces(content),
      contentLength: content.length,
      abortAfter: 1_200_000,
    });
    const head = await t.app.inject({
      method: 'HEAD',
      url: created.location!,
      headers: { ...r.member.headers, ...TUS },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['upload-length']).toBe(String(content.length));
    const offset = Number(head.headers['upload-offset']);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(1_200_000);
    // Nobody else sees or touches it.
    for (const who of [r.other, r.admin]) {
      const foreign = await t.app.inject({
        method: 'HEAD',
        url: created.location!,
        headers: { ...who.headers, ...TUS },
      });
      expect(foreign.statusCode).toBe(404);
      const patch = await t.app.inject({
        method: 'PATCH',
        url: created.location!,
        headers: { ...patchHeaders(offset), ...who.headers },
        payload: content.subarray(offset),
      });
      expect(patch.statusCode).toBe(404);
    }
    // A wrong offset is refused without writing anything.
    const wrong = await t.app.inject({
      method: 'PATCH',
      url: created.location!,
      headers: patchHeaders(0),
      payload: content.subarray(0, 1000),
    });
    expect(wrong.statusCode).toBe(409);

    const done = await rawRequest(url, {
      method: 'PATCH',
      headers: patchHeaders(offset),
      body: pieces(content.subarray(offset)),
      contentLength: content.length - offset,
    });
    expect(done.status, done.body.toString()).toBe(204);
    expect(done.headers['upload-offset']).toBe(String(content.length));
    expect(done.headers['x-file-id']).toBe(created.fileId);

    const listed = await list(r, r.other);
    expect(listed.files.map((f) => [f.id, f.size_bytes, f.can_manage])).toEqual([
      [created.fileId, content.length, false],
    ]);
    const download = await streamDownload(
      `${baseUrl}${PATHS.download}?id=${created.fileId}`,
      r.other.headers,
    );
    expect(download.status).toBe(200);
    expect(download.sha256).toBe(sha256(content));
    expect(tusDirFiles()).toEqual([]);
    const reservations = await t.ctx.db
      .selectFrom('ring_upload_reservations')
      .select('id')
      .where('ring_id', '=', r.ringId)
      .execute();
    expect(reservations).toEqual([]);
    // Finished: the upload URL is gone.
    expect(
      (
        await t.app.inject({
          method: 'HEAD',
          url: created.location!,
          headers: { ...r.member.headers, ...TUS },
        })
      ).statusCode,
    ).toBe(404);
    // No tus request in progress (the cut one included): the request storage, and with it Node's
    // async hooks for the whole process on Node 20 and 22, is off again.
    expect(tusRequestContextEnabled()).toBe(false);
  });

  it('checks the quota, the size and the metadata when a tus upload is created', async () => {
    const r = await ringFixture({ storage_quota_bytes: MIB, max_file_size_mb: 2 });
    const over = await tusCreate(r, r.member, encryptedFileSize(MIB + 100));
    expect(over.res.statusCode).toBe(413);
    expect(over.res.json()).toEqual({ success: false, error: M.quotaExceeded });
    const big = await ringFixture({ max_file_size_mb: 1 });
    const tooLarge = await tusCreate(big, big.member, encryptedFileSize(MIB + 1));
    expect(tooLarge.res.statusCode).toBe(413);
    expect(tooLarge.res.json().error).toBe('Fichier trop volumineux\u202f: 1 Mo maximum dans ce Ring');
    const notEncrypted = await tusCreate(r, r.member, 10);
    expect(notEncrypted.res.json().error).toBe(M.notEncrypted);

    const meta = await tusMetadata(r, 'a.txt');
    const deferred = await t.app.inject({
      method: 'POST',
      url: PATHS.tus,
      headers: { ...r.member.headers, ...TUS, 'upload-defer-length': '1', 'upload-metadata': meta.header },
    });
    expect(deferred.statusCode).toBe(400);
    expect(deferred.json().error).toBe(M.deferredLength);
    const clearName = await t.app.inject({
      method: 'POST',
      url: PATHS.tus,
      headers: {
        ...r.member.headers,
        ...TUS,
        'upload-length': String(encryptedFileSize(100)),
        'upload-metadata': `name ${Buffer.from('photo.jpg').toString('base64')}`,
      },
    });
    expect(clearName.statusCode).toBe(400);
    expect(clearName.json().error).toBe(M.invalidName);
    await expectNothingStored(r);
    expect(tusDirFiles()).toEqual([]);

    // Content that is not SRF1 is refused when it completes, and nothing of it stays.
    const created = await tusCreate(r, r.member, encryptedFileSize(1000));
    expect(created.res.statusCode).toBe(201);
    const plain = Buffer.alloc(encryptedFileSize(1000), 'texte en clair ');
    const finish = await t.app.inject({
      method: 'PATCH',
      url: created.location!,
      headers: {
        ...r.member.headers,
        ...TUS,
        'upload-offset': '0',
        'content-type': 'application/offset+octet-stream',
      },
      payload: plain,
    });
    expect(finish.statusCode).toBe(400);
    expect(finish.json().error).toBe(M.notEncrypted);
    await expectNothingStored(r);
    expect(tusDirFiles()).toEqual([]);
  });

  it('takes a small file in the creation request, and never more bytes than Upload-Length', async () => {
    const r = await ringFixture();
    const content = fakeCiphertext(5000);
    const meta = await tusMetadata(r, 'petit.txt');
    const oneShot = await t.app.inject({
      method: 'POST',
      url: PATHS.tus,
      headers: {
        ...r.member.headers,
        ...TUS,
        'upload-length': String(content.length),
        'upload-metadata': meta.header,
        'content-type': 'application/offset+octet-stream',
      },
      payload: content,
    });
    expect(oneShot.statusCode, oneShot.body).toBe(201);
    expect(oneShot.headers['x-file-id']).toBe(meta.fileId);
    const download = await inject('GET', `${PATHS.download}?id=${meta.fileId}`, r.member.headers);
    expect(download.rawPayload.equals(content)).toBe(true);

    // Sent without a length, a body longer than announced is cut at Upload-Length and refused.
    const size = encryptedFileSize(100_000);
    const created = await tusCreate(r, r.member, size);
    const overrun = await rawRequest(`${baseUrl}${created.location}`, {
      method: 'PATCH',
      headers: {
        ...r.member.headers,
        ...TUS,
        'upload-offset': '0',
        'content-type': 'application/offset+octet-stream',
      },
      body: pieces(fakeCiphertext(300_000)),
      contentLength: false,
    });
    expect(overrun.status).toBe(413);
    const head = await t.app.inject({
      method: 'HEAD',
      url: created.location!,
      headers: { ...r.member.headers, ...TUS },
    });
    expect(Number(head.headers['upload-offset'])).toBeLessThanOrEqual(size);
    expect((await list(r, r.member)).files.map((f) => f.id)).toEqual([meta.fileId]);
    // Announced with a length, it is refused before any byte is written.
    const announced = await t.app.inject({
      method: 'PATCH',
      url: created.location!,
      headers: {
        ...r.member.headers,
        ...TUS,
        'upload-offset': head.headers['upload-offset'] as string,
        'content-type': 'application/offset+octet-stream',
      },
      payload: Buffer.alloc(size + 10),
    });
    expect(announced.statusCode).toBe(413);
    const terminated = await t.app.inject({
      method: 'DELETE',
      url: created.location!,
      headers: { ...r.member.headers, ...TUS },
    });
    expect(terminated.statusCode).toBe(204);
    expect(tusDirFiles()).toEqual([]);
  });

  it('releases a terminated tus upload, and purges abandoned ones with their reservation', async () => {
    const r = await ringFixture({ storage_quota_bytes: 2 * MIB });
    const size = encryptedFileSize(MIB);
    const first = await tusCreate(r, r.member, size);
    expect(first.res.statusCode).toBe(201);
    // The reservation holds the space: a second one of the same size does not fit.
    expect((await tusCreate(r, r.member, size)).res.statusCode).toBe(413);
    const terminated = await t.app.inject({
      method: 'DELETE',
      url: first.location!,
      headers: { ...r.member.headers, ...TUS },
    });
    expect(terminated.statusCode).toBe(204);
    await expect
      .poll(
        async () =>
          (
            await t.ctx.db
              .selectFrom('ring_upload_reservations')
              .select('id')
              .where('ring_id', '=', r.ringId)
              .execute()
          ).length,
      )
      .toBe(0);
    expect(tusDirFiles()).toEqual([]);

    const abandoned = await tusCreate(r, r.member, size);
    expect(abandoned.res.statusCode).toBe(201);
    const content = fakeCiphertext(MIB);
    await t.app.inject({
      method: 'PATCH',
      url: abandoned.location!,
      headers: {
        ...r.member.headers,
        ...TUS,
        'upload-offset': '0',
        'content-type': 'application/offset+octet-stream',
      },
      payload: content.subarray(0, 100_000),
    });
    // A leftover of a creation that failed half-way: no reservation, an hour old.
    const orphan = path.join(storagePaths.tusUploads(t.ctx.config), randomUUID());
    fs.writeFileSync(orphan, 'partial');
    const old = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(orphan, old, old);

    await purgeAbandonedUploads(t.ctx);
    expect(fs.existsSync(orphan)).toBe(false);
    expect(tusDirFiles().length).toBeGreaterThan(0); // the live upload stays
    clock.advance(25 * 3600_000);
    await purgeAbandonedUploads(t.ctx);
    expect(tusDirFiles()).toEqual([]);
    const headers = bearer(await ringToken(t.ctx, r.member.id));
    expect(
      (await t.app.inject({ method: 'HEAD', url: abandoned.location!, headers: { ...headers, ...TUS } }))
        .statusCode,
    ).toBe(404);
    await expectNothingStored(r);
  });

  // ---- memory --------------------------------------------------------------------------------

  it('streams a large upload and its download without holding the file in memory', async () => {
    const r = await ringFixture({ max_file_size_mb: 200 });
    // Bounded buffers (three 6 MiB S3 parts by design, socket and disk buffers that grow when a
    // loaded machine writes slowly, chunks a collection has freed but not yet swept) stay below
    // three quarters of a file this size (21–29 MiB held on an idle machine, 50.5 MiB once in CI
    // with the whole suite running); a whole-file buffer holds the whole file at least.
    const fileBytes = 100 * MIB;
    // Warm up (first use of the multipart parser and storage code), so only the file's bytes count.
    await uploaded(r, r.member, fakeCiphertext(100_000));
    const content = fakeCiphertextStream(fileBytes);
    const fields = await uploadFields(r, 'archive.zip');
    const frame = multipartFrame(fields);
    // Memory in use (heap and buffers) after a full garbage collection, sampled while the bytes
    // flow: what the server holds, without the garbage a collection would free.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const live = () => {
      gc();
      const usage = process.memoryUsage();
      return { held: usage.heapUsed + usage.arrayBuffers, rss: usage.rss };
    };
    const sample = () => {
      const start = live();
      let held = 0;
      let rss = 0;
      const timer = setInterval(() => {
        const now = live();
        held = Math.max(held, now.held - start.held);
        rss = Math.max(rss, now.rss - start.rss);
      }, 250);
      return () => {
        clearInterval(timer);
        return { held, rss };
      };
    };
    const stopUpload = sample();
    const res = await rawRequest(`${baseUrl}${PATHS.upload}`, {
      headers: { ...r.member.headers, 'content-type': frame.contentType },
      body: (function* () {
        yield frame.head;
        yield* content.chunks();
        yield frame.tail;
      })(),
      contentLength: frame.head.length + content.size + frame.tail.length,
    });
    const uploadGrowth = stopUpload();
    expect(res.status, res.body.toString()).toBe(200);
    const fileId = res.json().file.id as string;

    const stopDownload = sample();
    const download = await streamDownload(`${baseUrl}${PATHS.download}?id=${fileId}`, r.other.headers);
    const downloadGrowth = stopDownload();
    expect(download.bytes).toBe(content.size);
    expect(download.sha256).toBe(content.digest());
    const mib = (n: number) => `${(n / MIB).toFixed(1)} MiB`;
    console.log(
      `[${kind}] ${mib(fileBytes)} upload: held +${mib(uploadGrowth.held)}, RSS +${mib(uploadGrowth.rss)}; ` +
        `download: held +${mib(downloadGrowth.held)}, RSS +${mib(downloadGrowth.rss)}`,
    );
    // A whole-file buffer would hold the file's size at least (the test client, the server and, for
    // S3, the local S3 server share this process): streaming stays well under it.
    expect(uploadGrowth.held).toBeLessThan(fileBytes * 0.75);
    expect(downloadGrowth.held).toBeLessThan(fileBytes * 0.75);
    expect(uploadGrowth.rss).toBeLessThan(fileBytes * 0.75);
    expect(downloadGrowth.rss).toBeLessThan(fileBytes * 0.75);
  }, 120_000);

  // Last: a restore replaces the whole database (and ends every session).
  it('backs up the stored files and restores them into the same storage', async () => {
    const r = await ringFixture();
    const kept = fakeCiphertext(200_000);
    const keptFile = await uploaded(r, r.member, kept, 'gardé.bin');
    const admin = await buildAdmin(t.ctx, { role: 'super_admin' });
    const adminHeaders = bearer(await adminToken(t.ctx, admin.id));
    const created = await inject('POST', '/api/admin/backup.php', adminHeaders, { action: 'create' });
    expect(created.statusCode, created.body).toBe(200);
    const filename = created.json().backup.filename as string;

    // After the backup: the kept file is deleted, another one arrives.
    expect((await inject('POST', PATHS.delete, r.member.headers, { id: keptFile.id })).statusCode).toBe(200);
    const later = await uploaded(r, r.member, fakeCiphertext(1000), 'après.bin');
    expect((await objectsOf(r.ringId)).map((o) => o.size)).toEqual([later.size_bytes]);

    const restored = await inject('POST', '/api/admin/backup.php', adminHeaders, {
      action: 'restore',
      filename,
    });
    expect(restored.statusCode, restored.body).toBe(200);
    const headers = bearer(await ringToken(t.ctx, r.member.id));
    const listed = await list(r, { headers });
    expect(listed.files.map((f) => f.id)).toEqual([keptFile.id]);
    const download = await inject('GET', `${PATHS.download}?id=${keptFile.id}`, headers);
    expect(download.statusCode).toBe(200);
    expect(sha256(download.rawPayload)).toBe(sha256(kept));
    // The object of the file the backup does not know is gone with it.
    expect((await objectsOf(r.ringId)).map((o) => o.size)).toEqual([kept.length]);
  });
});
