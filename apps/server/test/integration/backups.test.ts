import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  BACKUP_MESSAGES,
  MESSAGES,
  ZBackupRestoreResponse,
  backupSecretsNotRestoredMessage,
  ZBackupCreateResponse,
  ZBackupListResponse,
  type AdminModule,
  type PermissionType,
} from '@securering/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { migrations } from '../../src/db/migrations';
import { ManualClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { hashToken, newToken } from '../../src/lib/tokens';
import { BackupArchive } from '../../src/modules/backups/backup-archive';
import { BACKUP_LIMITS } from '../../src/modules/backups/backup.policy';
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
  customerToken,
  ringToken,
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
  'ring_epochs',
  'epoch_key_shares',
  'conversations',
  'conversation_participants',
  'messages',
  'conversation_reads',
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

/**
 * Rewrites the uncompressed size the central directory declares for an entry (the size checks
 * read it there): a zip bomb claims sizes, a liar hides them.
 */
function patchDeclaredSize(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip);
  const eocd = out.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const entries = out.readUInt16LE(eocd + 10);
  let at = out.readUInt32LE(eocd + 16);
  let patched = 0;
  for (let i = 0; i < entries; i++) {
    if (out.readUInt32LE(at) !== 0x02014b50) throw new Error('central directory not found');
    const nameLength = out.readUInt16LE(at + 28);
    const extraLength = out.readUInt16LE(at + 30);
    const commentLength = out.readUInt16LE(at + 32);
    if (out.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      out.writeUInt32LE(size, at + 24);
      patched++;
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  if (patched !== 1) throw new Error(`entry ${name} patched ${patched} times`);
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

  const adminIds = {} as Record<keyof typeof tokens, string>;
  async function adminWith(permissions: Array<[AdminModule, PermissionType]>) {
    return (await buildAdmin(t.ctx, { permissions })).id;
  }

  /** New sessions for root and the test admins: a restore ends every session. */
  async function signInAgain() {
    root = bearer(await adminToken(t.ctx, rootId));
    for (const [name, id] of Object.entries(adminIds))
      tokens[name as keyof typeof tokens] = bearer(await adminToken(t.ctx, id));
    // First use of each token (last_used_at), so later snapshots do not see it move.
    for (const headers of [root, ...Object.values(tokens)])
      await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers });
  }

  beforeAll(async () => {
    t = await buildTestApp({ clock });
    const admin = await t.ctx.db
      .selectFrom('admins')
      .select('id')
      .where('username', '=', TEST_ADMIN.username)
      .executeTakeFirstOrThrow();
    rootId = admin.id;
    adminIds.viewer = await adminWith([['backup', 'view']]);
    adminIds.creator = await adminWith([
      ['backup', 'view'],
      ['backup', 'create'],
    ]);
    adminIds.editor = await adminWith([
      ['backup', 'view'],
      ['backup', 'edit'],
    ]);
    adminIds.deleter = await adminWith([
      ['backup', 'view'],
      ['backup', 'delete'],
    ]);
    adminIds.other = await adminWith([
      ['plans', 'view'],
      ['plans', 'edit'],
      ['plans', 'create'],
      ['plans', 'delete'],
    ]);
    await signInAgain();
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
      current_epoch: 1,
      epoch_created_at: now,
      epoch_message_count: 2,
      share_history: 1,
    });
    const owner = await buildRingMember(ctx, ring.id, { role: 'owner', customer_id: customer.id });
    const member = await buildRingMember(ctx, ring.id, { email: null, last_seen_at: now });
    await ctx.db
      .insertInto('member_keys')
      .values({
        id: newId(),
        member_id: member.id,
        kdf: 'pbkdf2-sha256',
        kdf_salt_b64: 'c2FsdA==',
        kdf_iters: 310_000,
        wrapped_dek: 'd3JhcHBlZA==',
        iv_b64: 'aXY=',
        hmac_hex: 'ab'.repeat(32),
        created_at: now,
        updated_at: now,
        public_x25519: 'eA=='.padEnd(44, 'A'),
        public_ed25519: 'ZQ=='.padEnd(44, 'A'),
        fingerprint: '12345 67890 12345 67890 12345 67890',
        key_version: 2,
      })
      .execute();
    await ctx.db
      .insertInto('ring_epochs')
      .values({
        ring_id: ring.id,
        epoch: 1,
        level: 'standard',
        created_by_member_id: member.id,
        created_at: now,
      })
      .execute();
    await ctx.db
      .insertInto('epoch_key_shares')
      .values({
        id: newId(),
        ring_id: ring.id,
        epoch: 1,
        recipient_member_id: owner.id,
        recipient_key_version: 1,
        sender_member_id: member.id,
        share: '{"v":1,"ct":"chiffré"}',
        created_at: now,
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
        last_seq: 2,
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
          seq: 1,
          client_message_id: 'client-1',
          epoch: 1,
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
          // Still live when the backup is made (expired ones are left out: see below).
          expires_at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
          created_at: now,
          seq: 2,
          client_message_id: 'client-2',
          epoch: 1,
        },
      ])
      .execute();
    await ctx.db
      .insertInto('conversation_reads')
      .values({ conversation_id: conversationId, member_id: member.id, last_read_seq: 1, updated_at: now })
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
      version: 2,
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
    // Live credentials are left out; a sent mail keeps its addressee and subject, not its bodies.
    expect(atBackup.sessions!.length).toBeGreaterThan(0);
    expect(atBackup.customer_tokens!.length).toBeGreaterThan(0);
    expect(archivedData.sessions).toEqual([]);
    expect(archivedData.customer_tokens).toEqual([]);
    // The VAPID key pair (made at first start) is a credential too: never archived.
    expect(atBackup.web_push_keys!.length).toBe(1);
    expect(archivedData.web_push_keys).toEqual([]);
    const sentMail = archivedData
      .email_outbox!.map((line) => JSON.parse(line))
      .find((m) => m.status === 'sent');
    expect(sentMail).toMatchObject({ subject: 'Bienvenue', body_html: '', body_text: '' });
    const withoutCredentials = (data: Record<string, string[]>) => {
      const {
        sessions: _s,
        customer_tokens: _c,
        email_outbox: _o,
        web_push_keys: _k,
        push_subscriptions: _p,
        ...rest
      } = data;
      return rest;
    };
    expect(withoutCredentials(archivedData)).toEqual(withoutCredentials(atBackup));
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
    expect(res.json()).toEqual({ success: true, message: BACKUP_MESSAGES.restored, settings_to_reenter: [] });

    const restored = await snapshot();
    expect(withoutCredentials(restored)).toEqual(withoutCredentials(atBackup));
    expect(restored.sessions).toEqual([]);
    expect(restored.customer_tokens).toEqual([]);
    expect(restored.email_outbox).toEqual(archivedData.email_outbox);
    expect(files()).toEqual(filesAtBackup);
    const logs = await t.ctx.db.selectFrom('system_logs').selectAll().execute();
    const logLines = logs.map((row) => JSON.stringify(row));
    for (const line of archivedLogs!) expect(logLines).toContain(line);
    const restoredEntry = logs.find((l) => l.message === 'Sauvegarde restaurée');
    expect(restoredEntry).toMatchObject({ category: 'admin', user_id: rootId, ip_address: '127.0.0.1' });
    expect(JSON.parse(restoredEntry!.details!)).toMatchObject({ filename: backup.filename });
    expect(logs.length).toBe(archivedLogs!.length + 1);

    // Every session has ended: the one opened later, and the one that asked for the restore.
    for (const headers of [lateToken, root]) {
      const ended = await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers });
      expect(ended.statusCode).toBe(401);
      expect(ended.json().error).toBe(MESSAGES.sessionExpired);
    }
    await signInAgain();
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
      // A NUL character is refused for every request before the route runs (input guard).
      const expected = name.includes('%00') ? MESSAGES.invalidRequest : BACKUP_MESSAGES.invalidFilename;
      const download = await t.app.inject({
        method: 'GET',
        url: `${URL}?action=download&filename=${name}`,
        headers: root,
      });
      expect(download.statusCode, name).toBe(400);
      expect(download.json().error, name).toBe(expected);
      const removed = await t.app.inject({ method: 'DELETE', url: `${URL}?filename=${name}`, headers: root });
      expect(removed.statusCode, name).toBe(400);
      const restored = await restore(decodeURIComponent(name));
      expect(restored.statusCode, name).toBe(400);
      expect(restored.json().error, name).toBe(expected);
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

  it('leaves live credentials and the bodies of finished mails out, and a restore ends every session', async () => {
    const now = t.ctx.clock.now();
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id);
    const sessions = {
      admin: root,
      customer: bearer(await customerToken(t.ctx, customer.id)),
      ring: bearer(await ringToken(t.ctx, member.id)),
    };
    const resetToken = newToken();
    await t.ctx.db
      .insertInto('customer_tokens')
      .values({
        id: newId(),
        customer_id: customer.id,
        purpose: 'reset_password',
        token_hash: hashToken(resetToken),
        expires_at: new Date(now.getTime() + 3600_000).toISOString(),
        used_at: null,
        login_used_at: null,
        created_at: now.toISOString(),
      })
      .execute();
    const mail = (status: 'sent' | 'logged' | 'pending', body: string) => ({
      id: newId(),
      to_address: customer.email,
      subject: `Mail ${status}`,
      body_html: `<p>${body}</p>`,
      body_text: body,
      template_name: 'password_reset',
      status,
      attempts: status === 'pending' ? 0 : 1,
      next_attempt_at: now.toISOString(),
      locked_until: null,
      last_error: null,
      created_at: now.toISOString(),
      sent_at: status === 'pending' ? null : now.toISOString(),
    });
    await t.ctx.db
      .insertInto('email_outbox')
      .values([
        mail('sent', `http://x/reset-password?token=${resetToken}`),
        mail('logged', 'http://x/verify?token=logged-link-secret'),
        mail('pending', 'http://x/verify?token=pending-link-kept'),
      ])
      .execute();

    const backup = await create();
    const entries = await readZip(backupBytes(backup.filename));
    const text = [...entries.values()].map((b) => b.toString('utf8')).join('\n');
    expect(entries.get('db/sessions.jsonl')!.toString()).toBe('');
    expect(entries.get('db/customer_tokens.jsonl')!.toString()).toBe('');
    expect(JSON.parse(entries.get('manifest.json')!.toString()).tables).toMatchObject({
      sessions: 0,
      customer_tokens: 0,
    });
    expect(text).not.toContain(resetToken);
    expect(text).not.toContain(hashToken(resetToken));
    expect(text).not.toContain('logged-link-secret');
    expect(text).toContain('pending-link-kept');
    const outbox = entries
      .get('db/email_outbox.jsonl')!
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(outbox.find((m) => m.subject === 'Mail sent')).toMatchObject({
      body_html: '',
      body_text: '',
      status: 'sent',
    });

    const res = await restore(backup.filename);
    expect(res.statusCode, res.body).toBe(200);
    expect(await t.ctx.db.selectFrom('sessions').selectAll().execute()).toEqual([]);
    const calls = {
      admin: { method: 'GET' as const, url: `${URL}?action=list` },
      customer: { method: 'GET' as const, url: '/api/auth/customer-status.php' },
      ring: { method: 'POST' as const, url: '/api/rings/mint-stream-token.php' },
    };
    for (const audience of ['admin', 'customer', 'ring'] as const) {
      const ended = await t.app.inject({ ...calls[audience], headers: sessions[audience] });
      expect(ended.statusCode, audience).toBe(401);
    }
    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/auth/reset-password.php',
      payload: {
        token: resetToken,
        password: 'Nouveau-Mot-De-Passe-1',
        confirmPassword: 'Nouveau-Mot-De-Passe-1',
      },
    });
    expect(reset.statusCode).toBe(400);
    await signInAgain();
  });

  it('never keeps expired ephemeral messages, and numbers the messages of an archive made before sequences', async () => {
    const db = t.ctx.db;
    const now = clock.now().getTime();
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id);
    const conversationId = newId();
    await db
      .insertInto('conversations')
      .values({
        id: conversationId,
        ring_id: ring.id,
        kind: 'room',
        conversation_key: 'room:general',
        created_at: clock.now().toISOString(),
        last_seq: 3,
      })
      .execute();
    const message = (seq: number, expiresInMs: number | null) => ({
      id: newId(),
      ring_id: ring.id,
      conversation_id: conversationId,
      sender_member_id: member.id,
      content: `{"v":1,"n":${seq}}`,
      message_type: 'text',
      client_encrypted: 1 as const,
      is_ephemeral: expiresInMs === null ? (0 as const) : (1 as const),
      expires_at: expiresInMs === null ? null : new Date(now + expiresInMs).toISOString(),
      created_at: clock.now().toISOString(),
      seq,
      client_message_id: `c${seq}`,
      epoch: 1,
      // Every column the archive writes, so the hand-made row below has the archived rows' shape.
      ephemeral_sec: expiresInMs === null ? null : 3600,
      first_read_at: null,
    });
    const [lasting, live, expired] = [message(1, null), message(2, 3_600_000), message(3, -1)];
    await db.insertInto('messages').values([lasting, live, expired]).execute();

    const { entries, manifest } = await validEntries();
    const archivedIds = entries
      .get('db/messages.jsonl')!
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).id as string);
    expect(archivedIds).toEqual(expect.arrayContaining([lasting.id, live.id]));
    expect(archivedIds).not.toContain(expired.id);

    // An archive that still carries the expired message (hand-made), and whose messages have no
    // sequence columns (made before they existed): the restore drops the first and numbers the rest.
    const rows = entries
      .get('db/messages.jsonl')!
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const legacy = [...rows, { ...expired }].map(
      ({ seq: _s, client_message_id: _c, epoch: _e, ...rest }) => rest,
    );
    const crafted = new Map(entries);
    crafted.set('db/messages.jsonl', Buffer.from(legacy.map((row) => `${JSON.stringify(row)}\n`).join('')));
    crafted.set(
      'manifest.json',
      Buffer.from(JSON.stringify({ ...manifest, tables: { ...manifest.tables, messages: legacy.length } })),
    );
    fs.writeFileSync(
      path.join(storagePaths.backups(t.ctx.config), 'avant-les-sequences.zip'),
      await zipOf(asInputs(crafted)),
    );
    const res = await restore('avant-les-sequences.zip');
    expect(res.statusCode, res.body).toBe(200);
    const restored = await db
      .selectFrom('messages')
      .select(['id', 'seq', 'client_message_id', 'epoch'])
      .where('conversation_id', '=', conversationId)
      .orderBy('seq')
      .execute();
    expect(restored).toEqual([
      { id: lasting.id, seq: 1, client_message_id: lasting.id, epoch: 0 },
      { id: live.id, seq: 2, client_message_id: live.id, epoch: 0 },
    ]);
    const conversation = await db
      .selectFrom('conversations')
      .select('last_seq')
      .where('id', '=', conversationId)
      .executeTakeFirstOrThrow();
    expect(conversation.last_seq).toBe(2);
    await signInAgain();
  });

  it('never brings sessions, tokens or finished mail bodies back from an older archive', async () => {
    const { entries, manifest } = await validEntries();
    const live = await t.ctx.db.selectFrom('sessions').selectAll().execute();
    expect(live.length).toBeGreaterThan(0);
    const crafted = new Map(entries);
    crafted.set('db/sessions.jsonl', Buffer.from(live.map((row) => `${JSON.stringify(row)}\n`).join('')));
    const outboxLines = entries.get('db/email_outbox.jsonl')!.toString();
    const oldMail = {
      id: newId(),
      to_address: 'ancien@example.com',
      subject: 'Ancien',
      body_html: '<p>http://x/reset?token=old-archive-link</p>',
      body_text: 'http://x/reset?token=old-archive-link',
      template_name: null,
      status: 'sent',
      attempts: 1,
      next_attempt_at: '2026-01-01T00:00:00.000Z',
      locked_until: null,
      last_error: null,
      created_at: '2026-01-01T00:00:00.000Z',
      sent_at: '2026-01-01T00:00:00.000Z',
    };
    crafted.set('db/email_outbox.jsonl', Buffer.from(`${outboxLines}${JSON.stringify(oldMail)}\n`));
    crafted.set(
      'manifest.json',
      Buffer.from(
        JSON.stringify({
          ...manifest,
          version: 1,
          secrets: undefined,
          tables: {
            ...manifest.tables,
            sessions: live.length,
            email_outbox: manifest.tables.email_outbox! + 1,
          },
        }),
      ),
    );
    fs.writeFileSync(
      path.join(storagePaths.backups(t.ctx.config), 'ancien-format.zip'),
      await zipOf(asInputs(crafted)),
    );
    const res = await restore('ancien-format.zip');
    expect(res.statusCode, res.body).toBe(200);
    expect(await t.ctx.db.selectFrom('sessions').selectAll().execute()).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers: root })).statusCode).toBe(
      401,
    );
    const restoredMail = await t.ctx.db
      .selectFrom('email_outbox')
      .selectAll()
      .where('id', '=', oldMail.id)
      .executeTakeFirstOrThrow();
    expect(restoredMail).toMatchObject({ subject: 'Ancien', body_html: '', body_text: '' });
    await signInAgain();
  });

  it('leaves secret settings out without BACKUP_ENCRYPTION_KEY; a restore keeps the current ones and names them', async () => {
    await t.ctx.settings.save('smtp', { host: 'smtp.example.com', password: 'smtp-password-at-backup' });
    await t.ctx.settings.save('stripe', { secret_key_test: 'sk_test_at_backup' });
    const backup = await create();
    const raw = backupBytes(backup.filename);
    const entries = await readZip(raw);
    const text = [...entries.values()].map((b) => b.toString('utf8')).join('\n');
    expect(text).not.toContain('smtp-password-at-backup');
    expect(text).not.toContain('sk_test_at_backup');
    expect(raw.includes(Buffer.from('smtp-password-at-backup'))).toBe(false);
    const manifest = JSON.parse(entries.get('manifest.json')!.toString());
    expect(manifest.secrets).toEqual({
      encryption: 'none',
      keys: ['smtp.password', 'stripe.secret_key_test'],
    });
    const settingsRows = entries
      .get('db/settings.jsonl')!
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(settingsRows.find((r) => r.category === 'smtp' && r.key === 'password')).toMatchObject({
      setting_value: '',
    });
    expect(settingsRows.find((r) => r.category === 'smtp' && r.key === 'host')).toMatchObject({
      setting_value: 'smtp.example.com',
    });

    await t.ctx.settings.save('smtp', { host: 'smtp.example.com', password: 'smtp-password-now' });
    await t.ctx.settings.save('smtp', { host: 'smtp2.example.com', password: 'smtp-password-now' });
    const res = await restore(backup.filename);
    expect(res.statusCode, res.body).toBe(200);
    const body = ZBackupRestoreResponse.parse(res.json());
    expect(body.settings_to_reenter).toEqual([
      { category: 'smtp', key: 'password', label: 'Mot de passe SMTP' },
      { category: 'stripe', key: 'secret_key_test', label: 'Clé secrète Stripe (test)' },
    ]);
    expect(body.message).toBe(
      backupSecretsNotRestoredMessage(['Mot de passe SMTP', 'Clé secrète Stripe (test)']),
    );
    // The rest of the category comes from the backup; the secrets keep their current values.
    expect(await t.ctx.settings.getCategory('smtp')).toMatchObject({
      host: 'smtp.example.com',
      password: 'smtp-password-now',
    });
    expect(await t.ctx.settings.getValue('stripe', 'secret_key_test')).toBe('sk_test_at_backup');
    await signInAgain();
    const audit = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', 'Sauvegarde restaurée')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details!)).toMatchObject({
      settings_to_reenter: ['smtp.password', 'stripe.secret_key_test'],
    });
  });

  it('refuses zip bombs before extracting: too many entries or too large once inflated', async () => {
    const { entries } = await validEntries();
    const before = await snapshot();
    const filesBefore = files();
    const onDisk = backupsOnDisk();
    // Small entries claiming 4 GiB each, past the 64 GiB cap once added up.
    const bombs = Math.floor(BACKUP_LIMITS.maxUncompressedBytes / 0xfffffff0) + 1;
    let bomb = await zipOf([
      ...asInputs(entries),
      ...Array.from({ length: bombs }, (_, i) => ({
        name: `files/uploads/bomb-${i}.bin`,
        data: 'x'.repeat(1000),
      })),
    ]);
    for (let i = 0; i < bombs; i++) bomb = patchDeclaredSize(bomb, `files/uploads/bomb-${i}.bin`, 0xfffffff0);

    const uploaded = await upload('bombe.zip', bomb);
    expect(uploaded.statusCode).toBe(400);
    expect(uploaded.json()).toEqual({ success: false, error: BACKUP_MESSAGES.tooLargeUncompressed });
    expect(backupsOnDisk()).toEqual(onDisk);
    fs.writeFileSync(path.join(storagePaths.backups(t.ctx.config), 'bombe.zip'), bomb);
    const restored = await restore('bombe.zip');
    expect(restored.statusCode).toBe(400);
    expect(restored.json()).toEqual({ success: false, error: BACKUP_MESSAGES.tooLargeUncompressed });
    expect(await snapshot()).toEqual(before);
    expect(files()).toEqual(filesBefore);

    // The entry count is capped the same way (a smaller cap here than the real one).
    const many = path.join(storagePaths.backups(t.ctx.config), 'bombe.zip');
    await expect(
      BackupArchive.open(many, {
        maxEntries: entries.size,
        maxUncompressedBytes: BACKUP_LIMITS.maxUncompressedBytes,
      }),
    ).rejects.toMatchObject({ publicMessage: BACKUP_MESSAGES.tooManyEntries });
    fs.rmSync(many);
  });

  it('stops an entry that inflates beyond its declared size, and writes nothing', async () => {
    const { entries } = await validEntries();
    const liar = patchDeclaredSize(
      await zipOf([
        ...asInputs(entries),
        { name: 'files/uploads/menteur.bin', data: Buffer.alloc(1024 * 1024) },
      ]),
      'files/uploads/menteur.bin',
      16,
    );
    fs.writeFileSync(path.join(storagePaths.backups(t.ctx.config), 'menteur.zip'), liar);
    const before = await snapshot();
    const filesBefore = files();
    const res = await restore('menteur.zip');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: BACKUP_MESSAGES.unreadableData });
    expect(await snapshot()).toEqual(before);
    expect(files()).toEqual(filesBefore);
    expect(fs.readdirSync(path.join(t.ctx.config.dataDir, '.backup-work'))).toEqual([]);
  });

  it('checks the free disk space against the uncompressed size before restoring', async () => {
    const { filename } = await validEntries();
    const archive = await BackupArchive.open(path.join(storagePaths.backups(t.ctx.config), filename));
    const needed = archive.uncompressedBytes;
    archive.close();
    expect(needed).toBeGreaterThan(0);
    const before = await snapshot();
    const real = fs.promises.statfs.bind(fs.promises);
    const statfs = vi.spyOn(fs.promises, 'statfs').mockImplementation((async (target: fs.PathLike) => ({
      ...(await real(target)),
      bsize: 1,
      bavail: needed - 1,
    })) as unknown as typeof fs.promises.statfs);
    try {
      const res = await restore(filename);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: BACKUP_MESSAGES.notEnoughSpace });
      expect(await snapshot()).toEqual(before);
      expect(statfs).toHaveBeenCalled();
    } finally {
      statfs.mockRestore();
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
    // Archives are super-admin material: download and restore need the role, not a permission.
    const everyBackupRight = await adminWith([
      ['backup', 'view'],
      ['backup', 'create'],
      ['backup', 'edit'],
      ['backup', 'delete'],
    ]);
    const almostSuper = bearer(await adminToken(t.ctx, everyBackupRight));
    for (const headers of [viewer, almostSuper]) {
      const download = await t.app.inject({
        method: 'GET',
        url: `${URL}?action=download&filename=${filename}`,
        headers,
      });
      expect(download.statusCode).toBe(403);
      expect(download.json()).toEqual({ success: false, error: BACKUP_MESSAGES.superAdminOnly });
      expect(download.headers['content-type']).not.toBe('application/zip');
    }
    const restoreByAlmost = await restore(filename, almostSuper);
    expect(restoreByAlmost.statusCode).toBe(403);
    expect(restoreByAlmost.json().error).toBe(BACKUP_MESSAGES.superAdminOnly);
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
    // An admin holding edit may not restore; a super admin may (which ends every session).
    const byEditor = await restore(filename, tokens.editor);
    expect(byEditor.statusCode).toBe(403);
    expect(byEditor.json().error).toBe(BACKUP_MESSAGES.superAdminOnly);
    const restored = await restore(filename);
    expect(restored.statusCode, restored.body).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `${URL}?action=list`, headers: root })).statusCode).toBe(
      401,
    );
    await signInAgain();
  });
});

describe('backups with BACKUP_ENCRYPTION_KEY', () => {
  const KEY = 'cle-de-sauvegarde-de-test-0123456789-abcdef';
  const OTHER_KEY = 'une-autre-cle-de-sauvegarde-0123456789-xyz';
  const SECRETS = {
    smtp: { password: 'smtp-secret-chiffre' },
    stripe: { secret_key_test: 'sk_test_chiffre' },
    nowpayments: { api_key: 'np-key-chiffree' },
  } as const;
  let keyed: TestApp;
  let otherKey: TestApp;
  let keyless: TestApp;

  const rootOf = async (app: TestApp) =>
    bearer(await adminToken(app.ctx, (await app.ctx.admins.findByUsername(TEST_ADMIN.username))!.id));
  const restoreOn = async (app: TestApp, filename: string) =>
    app.app.inject({
      method: 'POST',
      url: URL,
      headers: await rootOf(app),
      payload: { action: 'restore', filename },
    });
  const secretsOf = async (app: TestApp) => ({
    smtp: await app.ctx.settings.getValue('smtp', 'password'),
    stripe: await app.ctx.settings.getValue('stripe', 'secret_key_test'),
    nowpayments: await app.ctx.settings.getValue('nowpayments', 'api_key'),
  });
  const setSecrets = async (app: TestApp, value: string) => {
    await app.ctx.settings.save('smtp', { host: 'smtp.example.com', password: `${value}-smtp` });
    await app.ctx.settings.save('stripe', { secret_key_test: `${value}-stripe` });
    await app.ctx.settings.save('nowpayments', { api_key: `${value}-np` });
  };

  // Three instances on one database and DATA_DIR, set up with the key, another key and none: as if
  // the same backups were restored by servers configured differently.
  beforeAll(async () => {
    keyed = await buildTestApp({ config: { backupEncryptionKey: KEY } });
    otherKey = await buildTestApp({ database: keyed.database, config: { backupEncryptionKey: OTHER_KEY } });
    keyless = await buildTestApp({ database: keyed.database });
  });
  afterAll(async () => {
    await otherKey.close();
    await keyless.close();
    await keyed.close();
  });

  it('keeps secrets only encrypted; the same key brings them back, another key or none keeps the current ones', async () => {
    await keyed.ctx.settings.save('smtp', { host: 'smtp.example.com', ...SECRETS.smtp });
    await keyed.ctx.settings.save('stripe', SECRETS.stripe);
    await keyed.ctx.settings.save('nowpayments', SECRETS.nowpayments);
    const created = await keyed.app.inject({
      method: 'POST',
      url: URL,
      headers: await rootOf(keyed),
      payload: { action: 'create' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const { filename } = ZBackupCreateResponse.parse(created.json()).backup;
    const raw = fs.readFileSync(path.join(storagePaths.backups(keyed.ctx.config), filename));
    const entries = await readZip(raw);
    const text = [...entries.values()].map((b) => b.toString('utf8')).join('\n');
    for (const value of ['smtp-secret-chiffre', 'sk_test_chiffre', 'np-key-chiffree', KEY])
      expect(text.includes(value) || raw.includes(Buffer.from(value)), value).toBe(false);
    const manifest = JSON.parse(entries.get('manifest.json')!.toString());
    expect(manifest.secrets).toMatchObject({
      encryption: 'aes-256-gcm',
      kdf: 'scrypt',
      salt: expect.any(String),
      check: expect.stringMatching(/^srenc:v1:/),
      keys: ['nowpayments.api_key', 'smtp.password', 'stripe.secret_key_test'],
    });
    const rows = entries
      .get('db/settings.jsonl')!
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { category: string; key: string; setting_value: string });
    const stored = (category: string, key: string) =>
      rows.find((r) => r.category === category && r.key === key)!.setting_value;
    expect(stored('smtp', 'password')).toMatch(/^srenc:v1:/);
    expect(stored('smtp', 'host')).toBe('smtp.example.com');
    expect(stored('stripe', 'secret_key_live')).toBe('');

    // Same key: the secrets come back as they were.
    await setSecrets(keyed, 'apres');
    const same = await restoreOn(keyed, filename);
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json()).toEqual({
      success: true,
      message: BACKUP_MESSAGES.restored,
      settings_to_reenter: [],
    });
    expect(await secretsOf(keyed)).toEqual({
      smtp: 'smtp-secret-chiffre',
      stripe: 'sk_test_chiffre',
      nowpayments: 'np-key-chiffree',
    });

    // Another key, or none: the current secrets stay and the answer names them.
    const labels = ['Clé API NOWPayments', 'Mot de passe SMTP', 'Clé secrète Stripe (test)'];
    for (const [label, app] of [
      ['other key', otherKey],
      ['no key', keyless],
    ] as const) {
      await setSecrets(app, 'actuel');
      const res = await restoreOn(app, filename);
      expect(res.statusCode, `${label}: ${res.body}`).toBe(200);
      const body = ZBackupRestoreResponse.parse(res.json());
      expect(
        body.settings_to_reenter.map((s) => s.label),
        label,
      ).toEqual(labels);
      expect(body.message).toBe(backupSecretsNotRestoredMessage(labels));
      expect(await secretsOf(app), label).toEqual({
        smtp: 'actuel-smtp',
        stripe: 'actuel-stripe',
        nowpayments: 'actuel-np',
      });
      // Nothing encrypted leaks into the live settings.
      expect(await app.ctx.settings.getValue('stripe', 'secret_key_live')).toBe('');
    }
  });

  it('binds each encrypted value to its setting: values swapped between settings are not restored', async () => {
    await keyed.ctx.settings.save('smtp', { host: 'smtp.example.com', password: 'smtp-lie' });
    await keyed.ctx.settings.save('stripe', { secret_key_test: 'sk-lie' });
    const created = await keyed.app.inject({
      method: 'POST',
      url: URL,
      headers: await rootOf(keyed),
      payload: { action: 'create' },
    });
    const { filename } = ZBackupCreateResponse.parse(created.json()).backup;
    const entries = await readZip(
      fs.readFileSync(path.join(storagePaths.backups(keyed.ctx.config), filename)),
    );
    const rows = entries
      .get('db/settings.jsonl')!
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { category: string; key: string; setting_value: string });
    const smtp = rows.find((r) => r.category === 'smtp' && r.key === 'password')!;
    const stripe = rows.find((r) => r.category === 'stripe' && r.key === 'secret_key_test')!;
    [smtp.setting_value, stripe.setting_value] = [stripe.setting_value, smtp.setting_value];
    entries.set('db/settings.jsonl', Buffer.from(rows.map((r) => `${JSON.stringify(r)}\n`).join('')));
    fs.writeFileSync(
      path.join(storagePaths.backups(keyed.ctx.config), 'echange.zip'),
      await zipOf([...entries].map(([name, data]) => ({ name, data }))),
    );
    await setSecrets(keyed, 'courant');
    const res = await restoreOn(keyed, 'echange.zip');
    expect(res.statusCode, res.body).toBe(200);
    expect(ZBackupRestoreResponse.parse(res.json()).settings_to_reenter.map((s) => s.key)).toEqual([
      'password',
      'secret_key_test',
    ]);
    expect(await keyed.ctx.settings.getValue('smtp', 'password')).toBe('courant-smtp');
    expect(await keyed.ctx.settings.getValue('stripe', 'secret_key_test')).toBe('courant-stripe');
  });
});
