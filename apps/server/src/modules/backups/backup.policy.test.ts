import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { lines } from './backup-archive';
import {
  ZBackupManifest,
  archivedRow,
  backupFileName,
  checkMigrations,
  classifyEntryName,
  isPlainValue,
  isSecretSettingRow,
  isSpecialEntry,
  orderTablesByDependencies,
  restoredSecretValue,
  uploadNameCandidates,
  withMessageSequence,
} from './backup.policy';

const NOW = '2026-11-24T10:00:00.000Z';

describe('backup entry names', () => {
  it('accepts the manifest, table files, file folders and their entries', () => {
    expect(classifyEntryName('manifest.json')).toEqual({ kind: 'manifest' });
    expect(classifyEntryName('db/customers.jsonl')).toEqual({ kind: 'table', table: 'customers' });
    expect(classifyEntryName('db/')).toEqual({ kind: 'directory' });
    expect(classifyEntryName('files/')).toEqual({ kind: 'directory' });
    expect(classifyEntryName('files/uploads/')).toEqual({ kind: 'directory' });
    expect(classifyEntryName('files/ring-files/r1/')).toEqual({ kind: 'directory' });
    expect(classifyEntryName('files/ring-files/r1/abc.bin')).toEqual({
      kind: 'file',
      root: 'ring-files',
      relative: 'r1/abc.bin',
    });
    expect(classifyEntryName('files/uploads/logo.png')).toEqual({
      kind: 'file',
      root: 'uploads',
      relative: 'logo.png',
    });
  });

  it.each([
    ['../evil.txt'],
    ['files/../../x'],
    ['files/ring-files/../../x'],
    ['files/ring-files/./x'],
    ['/abs/path'],
    ['C:/windows/x'],
    ['c:evil'],
    ['files/ring-files/..\\x'],
    ['files\\uploads\\x.png'],
    ['files/ring-files//x'],
    ['files/ring-files/a\u0000b'],
    ['db/../customers.jsonl'],
    [''],
    ['x'.repeat(2000)],
  ])('refuses %j as unsafe', (name) => {
    expect(classifyEntryName(name).kind).toBe('unsafe');
  });

  it.each([
    ['evil.txt'],
    ['manifest.json/'],
    ['db/customers.json'],
    ['db/Customers.jsonl'],
    ['db/sub/customers.jsonl'],
    ['files/other/x'],
    ['files/uploads'],
  ])('refuses %j as outside the layout', (name) => {
    expect(classifyEntryName(name).kind).toBe('unexpected');
  });

  it('spots links and special files from the Unix mode, and lets files and folders through', () => {
    const unix = 3 << 8;
    expect(isSpecialEntry((0o120777 << 16) >>> 0, unix | 20)).toBe(true);
    expect(isSpecialEntry((0o020644 << 16) >>> 0, unix | 20)).toBe(true);
    expect(isSpecialEntry((0o100644 << 16) >>> 0, unix | 20)).toBe(false);
    expect(isSpecialEntry((0o040755 << 16) >>> 0, unix | 20)).toBe(false);
    expect(isSpecialEntry(0x10, 20)).toBe(false);
    expect(isSpecialEntry(0, 20)).toBe(false);
  });
});

describe('backup table order', () => {
  it('puts parents before children, stable by name, and ignores self and unknown references', () => {
    const order = orderTablesByDependencies(
      ['messages', 'rings', 'customers', 'conversations', 'settings', 'ring_members'],
      [
        { child: 'rings', parent: 'customers' },
        { child: 'ring_members', parent: 'rings' },
        { child: 'ring_members', parent: 'customers' },
        { child: 'conversations', parent: 'rings' },
        { child: 'messages', parent: 'conversations' },
        { child: 'messages', parent: 'ring_members' },
        { child: 'messages', parent: 'messages' },
        { child: 'settings', parent: 'kysely_migration' },
      ],
    );
    expect(order).toEqual(['customers', 'rings', 'conversations', 'ring_members', 'messages', 'settings']);
  });

  it('throws on a cycle', () => {
    expect(() =>
      orderTablesByDependencies(
        ['a', 'b'],
        [
          { child: 'a', parent: 'b' },
          { child: 'b', parent: 'a' },
        ],
      ),
    ).toThrow(/cycle/);
  });
});

describe('backup compatibility and values', () => {
  it('accepts the same or an older migration list only', () => {
    expect(checkMigrations(['001', '002'], ['001', '002'])).toBe('compatible');
    expect(checkMigrations(['001'], ['001', '002'])).toBe('compatible');
    expect(checkMigrations([], ['001'])).toBe('compatible');
    expect(checkMigrations(['001', '002', '003'], ['001', '002'])).toBe('newer');
    expect(checkMigrations(['002'], ['001', '002'])).toBe('mismatch');
  });

  it('takes text, finite numbers and null as row values', () => {
    expect([null, 'a', 0, 1, 5_368_709_120].every(isPlainValue)).toBe(true);
    expect([{}, [], true, Number.NaN, Infinity, undefined].some(isPlainValue)).toBe(false);
  });
});

describe('backup file names', () => {
  it('names a backup after its UTC creation time, with a suffix on a clash', () => {
    const at = new Date('2026-11-22T08:05:09.123Z');
    expect(backupFileName(at)).toBe('securering-backup-20261122-080509.zip');
    expect(backupFileName(at, 'securering-backup', 1)).toBe('securering-backup-20261122-080509-2.zip');
  });

  it('keeps a safe uploaded name, drops folders, and generates one otherwise', () => {
    const at = new Date('2026-11-22T08:05:09Z');
    expect(uploadNameCandidates('mine.zip', at, 1)).toEqual([
      'mine.zip',
      'securering-upload-20261122-080509.zip',
    ]);
    expect(uploadNameCandidates('C:\\fakepath\\mine.zip', at, 1)[0]).toBe('mine.zip');
    expect(uploadNameCandidates('../../etc/mine.zip', at, 1)[0]).toBe('mine.zip');
    expect(uploadNameCandidates('ma sauvegarde.zip', at, 1)).toEqual([
      'securering-upload-20261122-080509.zip',
    ]);
    expect(uploadNameCandidates('.hidden.zip', at, 1)).toEqual(['securering-upload-20261122-080509.zip']);
    expect(uploadNameCandidates('MINE.ZIP', at, 1)).toEqual(['securering-upload-20261122-080509.zip']);
  });
});

describe('lines', () => {
  it('splits chunks on newlines, across chunk and UTF-8 boundaries', async () => {
    const text = Buffer.from('{"a":"é"}\r\n{"b":2}\n\n{"c":3}');
    const chunks = [text.subarray(0, 8), text.subarray(8, 14), text.subarray(14)];
    const out: string[] = [];
    for await (const line of lines(Readable.from(chunks))) out.push(line);
    expect(out).toEqual(['{"a":"é"}', '{"b":2}', '', '{"c":3}']);
  });
});

describe('what a backup keeps of each row', () => {
  const mail = (status: string) => ({
    id: 'm1',
    status,
    subject: 'Réinitialisation',
    to_address: 'a@example.com',
    body_html: '<a href="http://x/reset?token=abc">lien</a>',
    body_text: 'http://x/reset?token=abc',
  });

  it('leaves sessions and customer tokens out entirely', () => {
    expect(archivedRow('sessions', { id: 's', token_hash: 'h' }, NOW)).toBeUndefined();
    expect(archivedRow('customer_tokens', { id: 't', token_hash: 'h', used_at: null }, NOW)).toBeUndefined();
  });

  it('leaves out the quota reserved by uploads in progress (their partial bytes are not archived)', () => {
    const reservation = { id: 'u', ring_id: 'r', member_id: 'm', kind: 'tus', bytes: 10 };
    expect(archivedRow('ring_upload_reservations', reservation, NOW)).toBeUndefined();
  });

  it('keeps finished mails without their bodies, and pending mails whole', () => {
    for (const status of ['sent', 'logged', 'failed'])
      expect(archivedRow('email_outbox', mail(status), NOW), status).toEqual({
        ...mail(status),
        body_html: '',
        body_text: '',
      });
    for (const status of ['pending', 'sending'])
      expect(archivedRow('email_outbox', mail(status), NOW), status).toEqual(mail(status));
  });

  it('keeps every other row as it is', () => {
    const row = { id: 'c', email: 'a@example.com', password_hash: '$argon2id$…' };
    expect(archivedRow('customers', row, NOW)).toBe(row);
    expect(archivedRow('settings', { category: 'smtp', key: 'password', setting_value: 'x' }, NOW)).toEqual({
      category: 'smtp',
      key: 'password',
      setting_value: 'x',
    });
  });

  it('leaves out ephemeral messages whose expiry has passed, and keeps the others', () => {
    const message = (is_ephemeral: number, expires_at: string | null) => ({
      id: 'm',
      is_ephemeral,
      expires_at,
      content: '{"v":1}',
    });
    expect(archivedRow('messages', message(1, '2026-11-24T09:59:59.999Z'), NOW)).toBeUndefined();
    expect(archivedRow('messages', message(1, NOW), NOW)).toBeUndefined();
    const live = message(1, '2026-11-24T10:00:00.001Z');
    expect(archivedRow('messages', live, NOW)).toBe(live);
    const lasting = message(0, null);
    expect(archivedRow('messages', lasting, NOW)).toBe(lasting);
  });

  it('numbers the messages of an archive made before sequences, per conversation', () => {
    const counters = new Map<string, number>();
    const rows = [
      { id: 'a', conversation_id: 'c1' },
      { id: 'b', conversation_id: 'c2' },
      { id: 'c', conversation_id: 'c1' },
    ].map((row) => withMessageSequence(row, counters));
    expect(rows).toEqual([
      { id: 'a', conversation_id: 'c1', seq: 1, client_message_id: 'a', epoch: 0 },
      { id: 'b', conversation_id: 'c2', seq: 1, client_message_id: 'b', epoch: 0 },
      { id: 'c', conversation_id: 'c1', seq: 2, client_message_id: 'c', epoch: 0 },
    ]);
    const current = { id: 'd', conversation_id: 'c1', seq: 7, client_message_id: 'x', epoch: 3 };
    expect(withMessageSequence(current, counters)).toBe(current);
  });

  it('knows the secret settings from the catalogue', () => {
    expect(isSecretSettingRow({ category: 'smtp', key: 'password' })).toBe(true);
    expect(isSecretSettingRow({ category: 'stripe', key: 'webhook_secret' })).toBe(true);
    expect(isSecretSettingRow({ category: 'nowpayments', key: 'ipn_secret' })).toBe(true);
    expect(isSecretSettingRow({ category: 'smtp', key: 'host' })).toBe(false);
    expect(isSecretSettingRow({ category: 'stripe', key: 'public_key_test' })).toBe(false);
    expect(isSecretSettingRow({ category: 'nope', key: 'password' })).toBe(false);
  });
});

describe('restoredSecretValue', () => {
  const base = { archived: '', leftOut: false, isEnvelope: false, decrypted: undefined, current: 'actuel' };

  it('takes a value the key opens', () => {
    expect(
      restoredSecretValue({ ...base, archived: 'srenc:v1:x', isEnvelope: true, decrypted: 'clair' }),
    ).toEqual({
      value: 'clair',
      reenter: false,
    });
  });

  it('keeps the current value, to be re-entered, when the key is missing or wrong, or the secret was left out', () => {
    expect(restoredSecretValue({ ...base, archived: 'srenc:v1:x', isEnvelope: true })).toEqual({
      value: 'actuel',
      reenter: true,
    });
    expect(restoredSecretValue({ ...base, leftOut: true })).toEqual({ value: 'actuel', reenter: true });
    expect(restoredSecretValue({ ...base, leftOut: true, current: undefined })).toEqual({
      value: '',
      reenter: true,
    });
  });

  it('restores an empty secret, and the plain value of a version 1 archive, as they are', () => {
    expect(restoredSecretValue(base)).toEqual({ value: '', reenter: false });
    expect(restoredSecretValue({ ...base, archived: 'ancien-clair' })).toEqual({
      value: 'ancien-clair',
      reenter: false,
    });
  });
});

describe('manifest versions', () => {
  const manifest = {
    format: 'securering-backup',
    created_at: '2026-11-22T10:00:00.000Z',
    app_version: '1.0.0',
    dialect: 'sqlite',
    migrations: ['a'],
    tables: { customers: 1 },
  };

  it('reads version 1 and 2 archives, with or without a secrets section', () => {
    expect(ZBackupManifest.safeParse({ ...manifest, version: 1 }).success).toBe(true);
    expect(
      ZBackupManifest.safeParse({
        ...manifest,
        version: 2,
        secrets: { encryption: 'none', keys: ['smtp.password'] },
      }).success,
    ).toBe(true);
    expect(ZBackupManifest.safeParse({ ...manifest, version: 3 }).success).toBe(false);
    expect(
      ZBackupManifest.safeParse({ ...manifest, version: 2, secrets: { encryption: 'rot13', keys: [] } })
        .success,
    ).toBe(false);
  });
});
