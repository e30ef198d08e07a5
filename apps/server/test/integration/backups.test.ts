import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  BACKUP_MESSAGES,
  MESSAGES,
  ZBackupCreateResponse,
  ZBackupListResponse,
  type AdminModule,
  type PermissionType,
} from '@securering/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { migrations } from '../../src/db/migrations';
import { ManualClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { storagePaths } from '../../src/lib/storage-paths';
import { BackupRepository } from '../../src/modules/backups/backup.repository';
import { BackupService } from '../../src/modules/backups/backup.service';
import { buildTestApp, TEST_ADMIN, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
} from '../factories';

const URL = '/api/admin/backup.php';

/** Every table of db/schema.ts: a backup must carry each of them. */
const SCHEMA_TABLES = [
  'customers',
  'customer_tokens',
  'admins',
  'admin_permissions',
  'sessions',
  'settings',
  'plans',
  'plan_selections',
  'subscriptions',
  'payments',
  'webhook_events',
  'rings',
  'ring_members',
  'member_keys',
  'conversations',
  'conversation_participants',
  'messages',
  'ring_folders',
  'ring_files',
  'calls',
  'notification_settings',
  'email_templates',
  'email_outbox',
  'system_logs',
  'contact_messages',
];

interface ZipEntryInput {
  name: string;
  data?: string | Buffer;
  mode?: number;
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function zipOf(entries: ZipEntryInput[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) {
    zip.addBuffer(Buffer.from(entry.data ?? ''), entry.name, entry.mode ? { mode: entry.mode } : {});
  }
  zip.end();
  return collect(zip.outputStream);
}

/**
 * yazl refuses unsafe names, as it should: the archive is written with same-length placeholders
 * and the name bytes are patched afterwards (names are not covered by the CRC).
 */
async function zipWithRawNames(entries: ZipEntryInput[]): Promise<Buffer> {
  const swaps: Array<[Buffer, Buffer]> = [];
  const safe = entries.map((entry, i) => {
    const raw = Buffer.from(entry.name, 'utf8');
    if (/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(entry.name) && !entry.name.split('/').includes('..'))
      return entry;
    const placeholder = Buffer.from(`Q${i}${'Q'.repeat(raw.length)}`.slice(0, raw.length));
    swaps.push([placeholder, raw]);
    return { ...entry, name: placeholder.toString() };
  });
  const buffer = await zipOf(safe);
  for (const [placeholder, raw] of swaps) {
    let at = buffer.indexOf(placeholder);
    let found = 0;
    while (at >= 0) {
      raw.copy(buffer, at);
      found++;
      at = buffer.indexOf(placeholder, at + 1);
    }
    if (found !== 2) throw new Error(`placeholder found ${found} times`);
  }
  return buffer;
}

async function readZip(buffer: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true });
  const out = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    out.set(entry.fileName, await collect(await zip.openReadStreamPromise(entry)));
  }
  return out;
}

function multipart(parts: Array<{ name: string; value?: string; filename?: string; content?: Buffer }>) {
  const boundary = `----securering${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const file = part.filename !== undefined;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file ? `; filename="${part.filename}"` : ''}\r\n` +
          `${file ? 'Content-Type: application/zip\r\n' : ''}\r\n`,
      ),
    );
    chunks.push(part.content ?? Buffer.from(part.value ?? ''));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Every file under a folder: relative path → content (base64). */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string, prefix: string) => {
    if (!fs.existsSync(current)) return;
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full, `${prefix}${entry.name}/`);
      else out[`${prefix}${entry.name}`] = fs.readFileSync(full).toString('base64');
    }
  };
  walk(dir, '');
  return out;
}

describe('backups (/api/admin/backup.php)', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T10:00:00.000Z');
  let rootId: string;
  let root: Record<string, string>;
  const tokens = {} as Record<'viewer' | 'creator' | 'editor' | 'deleter' | 'other', Record<string, string>>;

  const files = () => ({
    ring: tree(storagePaths.allRingFiles(t.ctx.config)),
    uploads: tree(storagePaths.uploads(t.ctx.config)),
  });

  /** Every table except the system log (which records the calls themselves), rows as sorted JSON. */
  async function snapshot(except: string[] = ['system_logs']): Promise<Record<string, string[]>> {
    const repo = new BackupRepository(t.ctx.db, t.ctx.database.dialect);
    const out: Record<string, string[]> = {};
    for (const table of await repo.tablesInDependencyOrder()) {
      if (except.includes(table.name)) continue;
      const rows = (await sql<Record<string, unknown>>`select * from ${sql.id(table.name)}`.execute(t.ctx.db))
        .rows;
      out[table.name] = rows.map((row) => JSON.stringify(row)).sort();
    }
    return out;
  }

  const list = async (headers = root) => {
    const res = await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers });
    expect(res.statusCode).toBe(200);
    return ZBackupListResponse.parse(res.json()).backups;
  };
  const post = (payload: object, headers = root) =>
    t.app.inject({ method: 'POST', url: URL, headers, payload });
  const create = async () => {
    const res = await post({ action: 'create' });
    expect(res.statusCode, res.body).toBe(200);
    return ZBackupCreateResponse.parse(res.json()).backup;
  };
  const upload = (filename: string, content: Buffer, headers = root, action = 'upload') => {
    const body = multipart([
      { name: 'action', value: action },
      { name: 'backup_file', filename, content },
    ]);
    return t.app.inject({
      method: 'POST',
      url: URL,
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });
  };
  const restore = (filename: string, headers = root) => post({ action: 'restore', filename }, headers);
  const backupBytes = (filename: string) =>
    fs.readFileSync(path.join(storagePaths.backups(t.ctx.config), filename));
  const backupsOnDisk = () => fs.readdirSync(storagePaths.backups(t.ctx.config)).sort();

  async function adminWith(permissions: Array<[AdminModule, PermissionType]>) {
    const admin = await buildAdmin(t.ctx, { permissions });
    return bearer(await adminToken(t.ctx, admin.id));
  }

  beforeAll(async () => {
    t = await buildTestApp({ clock });
    const admin = await t.ctx.db
      .selectFrom('admins')
      .select('id')
      .where('username', '=', TEST_ADMIN.username)
      .executeTakeFirstOrThrow();
    rootId = admin.id;
    root = bearer(await adminToken(t.ctx, rootId));
    tokens.viewer = await adminWith([['backup', 'view']]);
    tokens.creator = await adminWith([
      ['backup', 'view'],
      ['backup', 'create'],
    ]);
    tokens.editor = await adminWith([
      ['backup', 'view'],
      ['backup', 'edit'],
    ]);
    tokens.deleter = await adminWith([
      ['backup', 'view'],
      ['backup', 'delete'],
    ]);
    tokens.other = await adminWith([
      ['plans', 'view'],
      ['plans', 'edit'],
      ['plans', 'create'],
      ['plans', 'delete'],
    ]);
    // First use of each token (last_used_at), so later snapshots do not see it move.
    for (const headers of [root, ...Object.values(tokens)])
      await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers });
  });
  afterAll(() => t.close());

  /** Rows in many tables, tricky values included, plus a Ring file and an uploaded logo on disk. */
  async function seedEverything() {
    const ctx = t.ctx;
    const now = ctx.clock.now().toISOString();
    const customer = await buildCustomer(ctx, {
      company: 'Société « Ωmega » "citée"\nsur deux lignes',
      address_line2: '',
    });
    const other = await buildCustomer(ctx, { stripe_customer_id: null, email_verified_at: null });
    const subscription = await buildSubscription(ctx, customer.id, {
      notes: 'Créé à la main ✓',
      created_by_admin_id: rootId,
    });
    const plan = await ctx.db
      .selectFrom('plans')
      .selectAll()
      .where('slug', '=', 'enterprise')
      .executeTakeFirstOrThrow();
    await ctx.db
      .insertInto('plan_selections')
      .values({
        id: newId(),
        customer_id: other.id,
        visitor_hash: null,
        plan_id: plan.id,
        billing_cycle: 'yearly',
        video_option: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('customer_tokens')
      .values({
        id: newId(),
        customer_id: other.id,
        purpose: 'verify_email',
        token_hash: randomBytes(16).toString('hex'),
        expires_at: now,
        used_at: null,
        login_used_at: null,
        created_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('payments')
      .values({
        id: newId(),
        customer_id: customer.id,
        subscription_id: subscription.id,
        plan_id: plan.id,
        plan_name: 'Entreprise',
        billing_cycle: 'yearly',
        video_enabled: 1,
        amount_cents: 199_900,
        currency: 'EUR',
        provider: 'stripe',
        status: 'completed',
        payment_type: 'subscription',
        transaction_id: 'ch_123',
        provider_order_id: null,
        failure_reason: null,
        metadata: '{"coin":"btc","amount":"0.001"}',
        created_at: now,
        updated_at: now,
        completed_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('webhook_events')
      .values({
        id: newId(),
        provider: 'stripe',
        event_id: 'evt_1',
        event_type: 'checkout.session.completed',
        received_at: now,
        processed_at: now,
      })
      .execute();
    const ring = await buildRing(ctx, customer.id, {
      withSubscription: false,
      storage_quota_bytes: 5 * 1024 ** 4,
    });
    const owner = await buildRingMember(ctx, ring.id, { role: 'owner', customer_id: customer.id });
    const member = await buildRingMember(ctx, ring.id, { email: null, last_seen_at: now });
    await ctx.db
      .insertInto('member_keys')
      .values({
        id: newId(),
        member_id: member.id,
        kdf_salt_b64: 'c2FsdA==',
        kdf_iters: 310_000,
        wrapped_dek: 'd3JhcHBlZA==',
        iv_b64: 'aXY=',
        hmac_hex: 'ab'.repeat(32),
        created_at: now,
        updated_at: now,
      })
      .execute();
    const conversationId = newId();
    await ctx.db
      .insertInto('conversations')
      .values({
        id: conversationId,
        ring_id: ring.id,
        kind: 'room',
        conversation_key: 'room:general',
        created_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('conversation_participants')
      .values([
        { conversation_id: conversationId, member_id: owner.id, created_at: now },
        { conversation_id: conversationId, member_id: member.id, created_at: now },
      ])
      .execute();
    await ctx.db
      .insertInto('messages')
      .values([
        {
          id: newId(),
          ring_id: ring.id,
          conversation_id: conversationId,
          sender_member_id: owner.id,
          content: 'Bonjour 👋\n"ligne 2"\\',
          message_type: 'text',
          client_encrypted: 1,
          is_ephemeral: 0,
          expires_at: null,
          created_at: now,
        },
        {
          id: newId(),
          ring_id: ring.id,
          conversation_id: conversationId,
          sender_member_id: null,
          content: '',
          message_type: 'system',
          client_encrypted: 0,
          is_ephemeral: 1,
          expires_at: now,
          created_at: now,
        },
      ])
      .execute();
    await ctx.db
      .insertInto('ring_folders')
      .values({ id: newId(), ring_id: ring.id, path: 'Documents/Contrats', created_at: now })
      .execute();
    const storageKey = `${newId()}.bin`;
    const ringFile = path.join(storagePaths.ringFiles(ctx.config, ring.id), storageKey);
    fs.mkdirSync(path.dirname(ringFile), { recursive: true });
    fs.writeFileSync(ringFile, randomBytes(4096));
    await ctx.db
      .insertInto('ring_files')
      .values({
        id: newId(),
        ring_id: ring.id,
        folder_path: 'Documents/Contrats',
        name: 'contrat',
        extension: 'pdf',
        original_name: 'contrat signé.pdf',
        mime_type: 'application/pdf',
        size_bytes: 4096,
        storage_key: storageKey,
        uploaded_by_member_id: owner.id,
        uploaded_at: now,
        updated_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('calls')
      .values({
        id: newId(),
        ring_id: ring.id,
        caller_member_id: owner.id,
        callee_member_id: member.id,
        call_type: 'video',
        status: 'ended',
        started_at: now,
        answered_at: now,
        ended_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('notification_settings')
      .values({
        id: newId(),
        owner_type: 'member',
        owner_id: member.id,
        settings: '{"sound":true}',
        updated_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('email_outbox')
      .values({
        id: newId(),
        to_address: customer.email,
        subject: 'Bienvenue',
        body_html: '<p>Salut</p>',
        body_text: 'Salut',
        template_name: 'welcome',
        status: 'sent',
        attempts: 1,
        next_attempt_at: now,
        locked_until: null,
        last_error: null,
        created_at: now,
        sent_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('contact_messages')
      .values({
        id: newId(),
        name: 'Jean',
        email: 'jean@example.com',
        subject: 'Question',
        message: 'Pourquoi ?',
        ip_address: '127.0.0.1',
        created_at: now,
        handled_at: null,
      })
      .execute();
    await ctx.systemLog.warning('system', 'Entrée de journal avant la sauvegarde', { details: { a: 1 } });
    await ctx.settings.save('general', { site_name: 'Mon site sauvegardé' });
    await ctx.db
      .updateTable('email_templates')
      .set({ subject: 'Sujet modifié' })
      .where('name', '=', 'welcome')
      .execute();
    const uploads = storagePaths.uploads(ctx.config);
    fs.mkdirSync(uploads, { recursive: true });
    fs.writeFileSync(path.join(uploads, 'logo.png'), randomBytes(512));
    return { customer, ring, ringFile, storageKey };
  }

  /** The entries of a fresh, valid backup, to build crafted archives from. */
  async function validEntries(): Promise<{
    filename: string;
    entries: Map<string, Buffer>;
    manifest: { tables: Record<string, number>; migrations: string[] };
  }> {
    const backup = await create();
    const entries = await readZip(backupBytes(backup.filename));
    return {
      filename: backup.filename,
      entries,
      manifest: JSON.parse(entries.get('manifest.json')!.toString()),
    };
  }

  const asInputs = (entries: Map<string, Buffer>): ZipEntryInput[] =>
    [...entries].map(([name, data]) => ({ name, data }));

  it('backs up every table and file, and a restore brings back exactly that state', async () => {
    const seeded = await seedEverything();
    const filesAtBackup = files();
    expect(Object.keys(filesAtBackup.ring)).toEqual([`${seeded.ring.id}/${seeded.storageKey}`]);

    const backup = await create();
    expect(backup.filename).toMatch(/^securering-backup-20261122-100000(-\d+)?\.zip$/);
    expect(backup.size).toBeGreaterThan(4096);
    const atBackup = await snapshot();

    const download = await t.app.inject({
      method: 'GET',
      url: `${URL}?action=download&filename=${backup.filename}`,
      headers: root,
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/zip');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="${backup.filename}"`);
    expect(download.rawPayload.equals(backupBytes(backup.filename))).toBe(true);

    const entries = await readZip(download.rawPayload);
    const manifest = JSON.parse(entries.get('manifest.json')!.toString());
    expect(manifest).toMatchObject({
      format: 'securering-backup',
      version: 1,
      app_version: t.ctx.config.version,
      dialect: t.ctx.database.dialect,
      migrations: Object.keys(migrations).sort(),
    });
    expect(Object.keys(manifest.tables).sort()).toEqual(expect.arrayContaining([...SCHEMA_TABLES].sort()));
    expect(Object.keys(manifest.tables)).not.toContain('kysely_migration');
    // Parents come before the tables that reference them.
    const order = Object.keys(manifest.tables);
    expect(order.indexOf('customers')).toBeLessThan(order.indexOf('rings'));
    expect(order.indexOf('rings')).toBeLessThan(order.indexOf('ring_members'));
    expect(order.indexOf('conversations')).toBeLessThan(order.indexOf('messages'));
    expect(order.indexOf('admins')).toBeLessThan(order.indexOf('subscriptions'));
    for (const name of entries.keys())
      expect(name).toMatch(/^(manifest\.json|db\/[a-z_]+\.jsonl|files\/(ring-files|uploads)\/.+)$/);
    expect(entries.get(`files/ring-files/${seeded.ring.id}/${seeded.storageKey}`)!.toString('base64')).toBe(
      filesAtBackup.ring[`${seeded.ring.id}/${seeded.storageKey}`],
    );
    expect(entries.get('files/uploads/logo.png')!.toString('base64')).toBe(filesAtBackup.uploads['logo.png']);

    // The archive holds exactly the database as it was (the system log gets the "created" entry after).
    const archived: Record<string, string[]> = {};
    for (const table of order) {
      const text = entries.get(`db/${table}.jsonl`)!.toString('utf8');
      const lines = text.split('\n').filter((l) => l !== '');
      expect(lines.length).toBe(manifest.tables[table]);
      archived[table] = lines.sort();
    }
    const { system_logs: archivedLogs, ...archivedData } = archived;
    expect(archivedData).toEqual(atBackup);
    expect(archived.rings!.some((line) => line.includes('"storage_quota_bytes":5497558138880'))).toBe(true);
    expect(
      archived.customers!.some((line) =>
        line.includes('"company":"Société « Ωmega » \\"citée\\"\\nsur deux lignes"'),
      ),
    ).toBe(true);

    // Everything changes after the backup: rows, settings, files; a new session is opened.
    const lateToken = bearer(await adminToken(t.ctx, rootId));
    await t.ctx.db.deleteFrom('customers').where('id', '=', seeded.customer.id).execute();
    await buildCustomer(t.ctx, { email: 'apres-la-sauvegarde@example.com' });
    await t.ctx.settings.save('general', { site_name: 'Nom changé' });
    await t.ctx.db.updateTable('plans').set({ price_cents: 1 }).execute();
    await t.ctx.db.deleteFrom('email_templates').execute();
    fs.rmSync(seeded.ringFile);
    fs.writeFileSync(path.join(storagePaths.allRingFiles(t.ctx.config), 'intrus.bin'), 'x');
    fs.rmSync(path.join(storagePaths.uploads(t.ctx.config), 'logo.png'));
    fs.writeFileSync(path.join(storagePaths.uploads(t.ctx.config), 'autre.png'), 'y');
    expect(await snapshot()).not.toEqual(atBackup);

    const res = await restore(backup.filename);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, message: BACKUP_MESSAGES.restored });

    expect(await snapshot()).toEqual(atBackup);
    expect(files()).toEqual(filesAtBackup);
    const logs = await t.ctx.db.selectFrom('system_logs').selectAll().execute();
    const logLines = logs.map((row) => JSON.stringify(row));
    for (const line of archivedLogs!) expect(logLines).toContain(line);
    const restoredEntry = logs.find((l) => l.message === 'Sauvegarde restaurée');
    expect(restoredEntry).toMatchObject({ category: 'admin', user_id: rootId, ip_address: '127.0.0.1' });
    expect(JSON.parse(restoredEntry!.details!)).toMatchObject({ filename: backup.filename });
    expect(logs.length).toBe(archivedLogs!.length + 1);

    // Sessions come from the backup: the one opened later is gone, the older one still works.
    const late = await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers: lateToken });
    expect(late.statusCode).toBe(401);
    expect(late.json().error).toBe(MESSAGES.sessionExpired);
    expect((await list()).some((b) => b.filename === backup.filename)).toBe(true);
    // No work folder is left behind.
    expect(fs.readdirSync(path.join(t.ctx.config.dataDir, '.backup-work'))).toEqual([]);
  });

  it('is all-or-nothing: a bad row in the last table or a broken reference changes nothing', async () => {
    const { entries, manifest } = await validEntries();
    const order = Object.keys(manifest.tables);
    const lastWithRows = [...order].reverse().find((table) => manifest.tables[table]! > 0)!;
    expect(order.indexOf(lastWithRows)).toBeGreaterThan(order.length / 2);

    const duplicate = new Map(entries);
    const lastLines = duplicate.get(`db/${lastWithRows}.jsonl`)!.toString();
    duplicate.set(`db/${lastWithRows}.jsonl`, Buffer.from(`${lastLines}${lastLines.split('\n')[0]}\n`));
    duplicate.set(
      'manifest.json',
      Buffer.from(
        JSON.stringify({
          ...manifest,
          tables: { ...manifest.tables, [lastWithRows]: manifest.tables[lastWithRows]! + 1 },
        }),
      ),
    );

    const brokenReference = new Map(entries);
    const messageLines = brokenReference.get('db/messages.jsonl')!.toString();
    const orphan = { ...JSON.parse(messageLines.split('\n')[0]!), id: newId(), ring_id: 'no-such-ring' };
    brokenReference.set('db/messages.jsonl', Buffer.from(`${messageLines}${JSON.stringify(orphan)}\n`));
    brokenReference.set(
      'manifest.json',
      Buffer.from(
        JSON.stringify({
          ...manifest,
          tables: { ...manifest.tables, messages: manifest.tables.messages! + 1 },
        }),
      ),
    );

    // Make the live state differ from the archive, so a partial restore would show.
    await buildCustomer(t.ctx, { email: 'pendant-le-test@example.com' });
    fs.writeFileSync(path.join(storagePaths.uploads(t.ctx.config), 'nouveau.png'), 'z');

    for (const [label, crafted] of [
      ['duplicate', duplicate],
      ['reference', brokenReference],
    ] as const) {
      const uploaded = await upload(`crafted-${label}.zip`, await zipOf(asInputs(crafted)));
      expect(uploaded.statusCode, uploaded.body).toBe(200);
      const name = ZBackupCreateResponse.parse(uploaded.json()).backup.filename;
      expect(name).toBe(`crafted-${label}.zip`);
      const before = await snapshot();
      const filesBefore = files();
      const res = await restore(name);
      expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({ success: false, error: BACKUP_MESSAGES.inconsistent });
      expect(await snapshot()).toEqual(before);
      expect(files()).toEqual(filesBefore);
      const failure = await t.ctx.db
        .selectFrom('system_logs')
        .selectAll()
        .where('message', '=', 'Échec de la restauration d’une sauvegarde')
        .orderBy('id', 'desc')
        .executeTakeFirst();
      expect(failure).toMatchObject({ level: 'error', user_id: rootId });
    }
    expect(fs.readdirSync(path.join(t.ctx.config.dataDir, '.backup-work'))).toEqual([]);
  });

  it('refuses unreadable rows, unknown columns and backups of a newer version before touching anything', async () => {
    const { entries, manifest } = await validEntries();
    const variants: Array<[string, Map<string, Buffer>, string]> = [];

    const badJson = new Map(entries);
    badJson.set('db/plans.jsonl', Buffer.from(`${entries.get('db/plans.jsonl')!.toString()}{"id": oops}\n`));
    variants.push(['bad-json', badJson, BACKUP_MESSAGES.unreadableData]);

    const unknownColumn = new Map(entries);
    const planLines = entries.get('db/plans.jsonl')!.toString().split('\n').filter(Boolean);
    unknownColumn.set(
      'db/plans.jsonl',
      Buffer.from(planLines.map((l) => JSON.stringify({ ...JSON.parse(l), hacked: 1 })).join('\n') + '\n'),
    );
    variants.push(['unknown-column', unknownColumn, BACKUP_MESSAGES.unreadableData]);

    const nested = new Map(entries);
    nested.set(
      'db/plans.jsonl',
      Buffer.from(
        planLines.map((l) => JSON.stringify({ ...JSON.parse(l), name: { $gt: '' } })).join('\n') + '\n',
      ),
    );
    variants.push(['nested-value', nested, BACKUP_MESSAGES.unreadableData]);

    const wrongCount = new Map(entries);
    wrongCount.set(
      'manifest.json',
      Buffer.from(
        JSON.stringify({ ...manifest, tables: { ...manifest.tables, plans: manifest.tables.plans! + 5 } }),
      ),
    );
    variants.push(['wrong-count', wrongCount, BACKUP_MESSAGES.unreadableData]);

    const newer = new Map(entries);
    newer.set(
      'manifest.json',
      Buffer.from(
        JSON.stringify({ ...manifest, migrations: [...manifest.migrations, '29990101-001-future'] }),
      ),
    );
    variants.push(['newer', newer, BACKUP_MESSAGES.newerVersion]);

    const missingTable = new Map(entries);
    missingTable.delete('db/plans.jsonl');
    const { plans: _plans, ...otherTables } = manifest.tables;
    missingTable.set('manifest.json', Buffer.from(JSON.stringify({ ...manifest, tables: otherTables })));
    variants.push(['missing-table', missingTable, BACKUP_MESSAGES.notSecureRing]);

    for (const [label, crafted, message] of variants) {
      const name = `variant-${label}.zip`;
      fs.writeFileSync(path.join(storagePaths.backups(t.ctx.config), name), await zipOf(asInputs(crafted)));
      const before = await snapshot();
      const filesBefore = files();
      const res = await restore(name);
      expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
      expect(res.json().error, label).toBe(message);
      expect(await snapshot()).toEqual(before);
      expect(files()).toEqual(filesBefore);
    }
  });

  it('refuses archives with entries that escape their folder, at upload and at restore, and writes nothing', async () => {
    const { entries } = await validEntries();
    const dataDir = t.ctx.config.dataDir;
    const listed = (await list()).map((b) => b.filename).sort();
    const onDisk = backupsOnDisk();
    const before = await snapshot();
    const filesBefore = files();
    const evil: ZipEntryInput[] = [
      { name: '../evil.txt', data: 'pwned' },
      { name: 'files/../../evil.txt', data: 'pwned' },
      { name: 'files/ring-files/../../evil.txt', data: 'pwned' },
      { name: '/tmp/securering-evil.txt', data: 'pwned' },
      { name: 'files/ring-files/..\\..\\evil.txt', data: 'pwned' },
      { name: 'files\\uploads\\evil.txt', data: 'pwned' },
      { name: 'C:/evil.txt', data: 'pwned' },
    ];
    const archives: Array<[string, Buffer]> = [];
    for (const entry of evil)
      archives.push([entry.name, await zipWithRawNames([...asInputs(entries), entry])]);
    archives.push([
      'symlink',
      await zipOf([
        ...asInputs(entries),
        { name: 'files/uploads/link.png', data: '/etc/passwd', mode: 0o120777 },
      ]),
    ]);
    archives.push([
      'outside layout',
      await zipOf([...asInputs(entries), { name: 'evil.txt', data: 'pwned' }]),
    ]);

    for (const [label, archive] of archives) {
      const uploaded = await upload('slip.zip', archive);
      expect(uploaded.statusCode, label).toBe(400);
      expect(uploaded.json(), label).toEqual({ success: false, error: BACKUP_MESSAGES.unsafePath });
      expect(backupsOnDisk(), label).toEqual(onDisk);

      // The same archive placed on disk by other means is refused by the restore too.
      const target = path.join(storagePaths.backups(t.ctx.config), 'slip.zip');
      fs.writeFileSync(target, archive);
      const restored = await restore('slip.zip');
      expect(restored.statusCode, label).toBe(400);
      expect(restored.json(), label).toEqual({ success: false, error: BACKUP_MESSAGES.unsafePath });
      fs.rmSync(target);
    }
    for (const candidate of [
      path.resolve(dataDir, '..', 'evil.txt'),
      path.resolve(dataDir, 'evil.txt'),
      path.resolve(dataDir, '.backup-work', '..', 'evil.txt'),
      path.resolve(storagePaths.allRingFiles(t.ctx.config), 'evil.txt'),
      '/tmp/securering-evil.txt',
    ]) {
      expect(fs.existsSync(candidate), candidate).toBe(false);
    }
    expect(await snapshot()).toEqual(before);
    expect(files()).toEqual(filesBefore);
    expect((await list()).map((b) => b.filename).sort()).toEqual(listed);
    const warning = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', 'Archive de sauvegarde refusée')
      .executeTakeFirst();
    expect(warning).toMatchObject({ level: 'warning', user_id: rootId });
  });

  it('checks uploads: .zip only, a SecureRing backup only, kept under a safe name', async () => {
    const { entries } = await validEntries();
    const valid = await zipOf(asInputs(entries));
    const onDisk = backupsOnDisk();

    const wrongExtension = await upload('backup.tar.gz', valid);
    expect(wrongExtension.statusCode).toBe(400);
    expect(wrongExtension.json().error).toBe(BACKUP_MESSAGES.zipOnly);

    const refusedAsInvalid: Array<[string, Buffer]> = [
      ['not a zip', Buffer.from('hello, this is not a zip file at all')],
      ['empty', Buffer.alloc(0)],
      [
        'another zip',
        await zipOf([
          { name: 'readme.txt', data: 'bonjour' },
          { name: 'photos/a.jpg', data: 'x' },
        ]),
      ],
      ['foreign manifest', await zipOf([{ name: 'manifest.json', data: '{"format":"other","version":1}' }])],
      [
        'future format',
        await zipOf([
          ...asInputs(entries).filter((e) => e.name !== 'manifest.json'),
          {
            name: 'manifest.json',
            data: JSON.stringify({ ...JSON.parse(entries.get('manifest.json')!.toString()), version: 99 }),
          },
        ]),
      ],
      ['manifest not json', await zipOf([{ name: 'manifest.json', data: '{oops' }])],
      ['truncated', valid.subarray(0, Math.floor(valid.length / 2))],
    ];
    for (const [label, content] of refusedAsInvalid) {
      const res = await upload('archive.zip', content);
      expect(res.statusCode, label).toBe(400);
      expect(res.json().error, label).toBe(BACKUP_MESSAGES.notSecureRing);
    }
    expect(backupsOnDisk()).toEqual(onDisk);

    const noFile = multipart([{ name: 'action', value: 'upload' }]);
    const missing = await t.app.inject({
      method: 'POST',
      url: URL,
      headers: { ...root, ...noFile.headers },
      payload: noFile.payload,
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe(BACKUP_MESSAGES.fileRequired);
    const wrongAction = await upload('ok.zip', valid, root, 'restore');
    expect(wrongAction.statusCode).toBe(400);
    expect(backupsOnDisk()).toEqual(onDisk);

    const first = await upload('ma-sauvegarde.zip', valid);
    expect(first.statusCode, first.body).toBe(200);
    expect(ZBackupCreateResponse.parse(first.json())).toMatchObject({
      message: BACKUP_MESSAGES.uploaded,
      backup: { filename: 'ma-sauvegarde.zip', size: valid.length },
    });
    const clash = await upload('ma-sauvegarde.zip', valid);
    const spaced = await upload('C:\\Users\\moi\\ma sauvegarde (1).zip', valid);
    const clashName = ZBackupCreateResponse.parse(clash.json()).backup.filename;
    const spacedName = ZBackupCreateResponse.parse(spaced.json()).backup.filename;
    expect(clashName).toMatch(/^securering-upload-20261122-100000(-\d+)?\.zip$/);
    expect(spacedName).toMatch(/^securering-upload-20261122-100000(-\d+)?\.zip$/);
    expect(new Set(['ma-sauvegarde.zip', clashName, spacedName]).size).toBe(3);
    expect(backupBytes('ma-sauvegarde.zip').equals(valid)).toBe(true);
    expect(backupsOnDisk().filter((n) => n.startsWith('.'))).toEqual([]);
    // Past the size limit (the multipart reader errors, or flags the file as truncated): refused, nothing kept.
    const admin = await t.ctx.db
      .selectFrom('admins')
      .selectAll()
      .where('id', '=', rootId)
      .executeTakeFirstOrThrow();
    const service = new BackupService(t.ctx);
    const tooLarge = Object.assign(new Error('too large'), { code: 'FST_REQ_FILE_TOO_LARGE' });
    const erroring = new Readable({
      read() {
        this.push(valid.subarray(0, 100));
        this.destroy(tooLarge);
      },
    });
    await expect(service.upload(admin, {}, { filename: 'big.zip', stream: erroring })).rejects.toMatchObject({
      statusCode: 413,
      message: BACKUP_MESSAGES.tooLarge,
    });
    const truncated = Object.assign(Readable.from([valid]), { truncated: true });
    await expect(service.upload(admin, {}, { filename: 'big.zip', stream: truncated })).rejects.toMatchObject(
      { statusCode: 413, message: BACKUP_MESSAGES.tooLarge },
    );
    expect(backupsOnDisk().filter((n) => n.startsWith('.') || n === 'big.zip')).toEqual([]);

    const uploadedLog = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', 'Sauvegarde envoyée')
      .executeTakeFirst();
    expect(uploadedLog).toMatchObject({ category: 'admin', user_id: rootId, ip_address: '127.0.0.1' });
  });

  it('refuses file names that are not plain backup names, and answers 404 for missing ones', async () => {
    const outside = path.join(t.ctx.config.dataDir, 'outside.zip');
    fs.writeFileSync(outside, 'secret');
    const badNames = [
      '../outside.zip',
      '..%2Foutside.zip',
      '%2Fetc%2Fpasswd',
      'sub%2Fx.zip',
      'x.txt',
      '..',
      '.zip',
      '',
      'a%5C..%5Cb.zip',
      'x.zip%00.txt',
    ];
    for (const name of badNames) {
      const download = await t.app.inject({
        method: 'GET',
        url: `${URL}?action=download&filename=${name}`,
        headers: root,
      });
      expect(download.statusCode, name).toBe(400);
      expect(download.json().error, name).toBe(BACKUP_MESSAGES.invalidFilename);
      const removed = await t.app.inject({ method: 'DELETE', url: `${URL}?filename=${name}`, headers: root });
      expect(removed.statusCode, name).toBe(400);
      const restored = await restore(decodeURIComponent(name));
      expect(restored.statusCode, name).toBe(400);
      expect(restored.json().error, name).toBe(BACKUP_MESSAGES.invalidFilename);
    }
    expect(fs.readFileSync(outside, 'utf8')).toBe('secret');
    const missing = await t.app.inject({
      method: 'GET',
      url: `${URL}?action=download&filename=absent.zip`,
      headers: root,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ success: false, error: BACKUP_MESSAGES.notFound });
    expect((await restore('absent.zip')).statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${URL}?filename=absent.zip`, headers: root })).statusCode,
    ).toBe(404);
    const unknownAction = await t.app.inject({ method: 'GET', url: `${URL}?action=purge`, headers: root });
    expect(unknownAction.json()).toEqual({ success: false, error: BACKUP_MESSAGES.unknownAction });
    expect((await post({ action: 'explode' })).json()).toEqual({
      success: false,
      error: BACKUP_MESSAGES.unknownAction,
    });
  });

  it('lists newest first, deletes with confirmation of the name, and audits every write', async () => {
    const a = await create();
    clock.advance(1000);
    const b = await create();
    expect(b.filename).toBe('securering-backup-20261122-100001.zip');
    const backups = await list();
    expect(backups.map((x) => x.filename)).toContain(a.filename);
    expect(backups.findIndex((x) => x.filename === b.filename)).toBeLessThanOrEqual(
      backups.findIndex((x) => x.filename === a.filename),
    );
    for (const item of backups) {
      expect(Number.isNaN(Date.parse(item.date))).toBe(false);
      expect(item.size).toBe(fs.statSync(path.join(storagePaths.backups(t.ctx.config), item.filename)).size);
    }
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `${URL}?filename=${a.filename}`,
      headers: root,
    });
    expect(removed.json()).toEqual({ success: true, message: BACKUP_MESSAGES.deleted });
    expect((await list()).some((x) => x.filename === a.filename)).toBe(false);
    expect(fs.existsSync(path.join(storagePaths.backups(t.ctx.config), a.filename))).toBe(false);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${URL}?filename=${a.filename}`, headers: root }))
        .statusCode,
    ).toBe(404);
    const logs = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('category', '=', 'admin')
      .execute();
    for (const message of ['Sauvegarde créée', 'Sauvegarde supprimée']) {
      expect(
        logs.find((l) => l.message === message && l.details?.includes(a.filename)),
        message,
      ).toMatchObject({ user_id: rootId, ip_address: '127.0.0.1' });
    }
  });

  it('runs one create or restore at a time', async () => {
    const [first, second] = await Promise.all([post({ action: 'create' }), post({ action: 'create' })]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 409]);
    expect([first, second].find((r) => r.statusCode === 409)!.json().error).toBe(BACKUP_MESSAGES.busy);
    expect((await post({ action: 'create' })).statusCode).toBe(200);
  });

  it('needs an admin token and the backup permission for each action', async () => {
    const { filename } = await validEntries();
    const valid = backupBytes(filename);
    const onDisk = backupsOnDisk();

    const anonymous = [
      await t.app.inject({ method: 'GET', url: `${URL}?action=list` }),
      await t.app.inject({ method: 'GET', url: `${URL}?action=download&filename=${filename}` }),
      await t.app.inject({ method: 'POST', url: URL, payload: { action: 'create' } }),
      await t.app.inject({ method: 'POST', url: URL, payload: { action: 'restore', filename } }),
      await t.app.inject({ method: 'DELETE', url: `${URL}?filename=${filename}` }),
      await upload('x.zip', valid, {}),
    ];
    for (const res of anonymous) {
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe(MESSAGES.notAuthenticated);
    }

    const other = tokens.other;
    expect(
      (await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers: other })).statusCode,
    ).toBe(403);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `${URL}?action=download&filename=${filename}`,
          headers: other,
        })
      ).statusCode,
    ).toBe(403);
    expect((await post({ action: 'create' }, other)).statusCode).toBe(403);

    const viewer = tokens.viewer;
    expect(
      (await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers: viewer })).statusCode,
    ).toBe(200);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `${URL}?action=download&filename=${filename}`,
          headers: viewer,
        })
      ).statusCode,
    ).toBe(200);
    for (const res of [
      await post({ action: 'create' }, viewer),
      await restore(filename, viewer),
      await upload('x.zip', valid, viewer),
      await t.app.inject({ method: 'DELETE', url: `${URL}?filename=${filename}`, headers: viewer }),
    ]) {
      expect(res.statusCode).toBe(403);
    }
    expect(backupsOnDisk()).toEqual(onDisk);

    // create covers create and upload, edit covers restore, delete covers delete.
    expect((await restore(filename, tokens.creator)).statusCode).toBe(403);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${URL}?filename=${filename}`, headers: tokens.creator }))
        .statusCode,
    ).toBe(403);
    expect((await post({ action: 'create' }, tokens.editor)).statusCode).toBe(403);
    expect((await upload('x.zip', valid, tokens.editor)).statusCode).toBe(403);
    expect((await upload('par-createur.zip', valid, tokens.creator)).statusCode).toBe(200);
    const created = await post({ action: 'create' }, tokens.creator);
    expect(created.statusCode).toBe(200);
    const createdName = ZBackupCreateResponse.parse(created.json()).backup.filename;
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `${URL}?filename=${createdName}`,
          headers: tokens.deleter,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${URL}?filename=par-createur.zip`, headers: root }))
        .statusCode,
    ).toBe(200);
    // Last: a restore by an admin holding edit (sessions come back from the backup, which holds this one).
    const restored = await restore(filename, tokens.editor);
    expect(restored.statusCode, restored.body).toBe(200);
  });
});
