import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import {
  ENVELOPE_PREFIX,
  decryptValue,
  deriveBackupKey,
  encryptValue,
  isEnvelope,
  keyCheckOf,
  keyMatches,
  newBackupSalt,
  settingAad,
} from './backup-secrets';

const PASSPHRASE = 'une-cle-de-sauvegarde-assez-longue-0123456789';

describe('backup secrets (AES-256-GCM, scrypt)', () => {
  it('derives the same 32-byte key from the same passphrase and salt only', async () => {
    const salt = newBackupSalt();
    const key = await deriveBackupKey(PASSPHRASE, salt);
    expect(key.length).toBe(32);
    expect((await deriveBackupKey(PASSPHRASE, salt)).equals(key)).toBe(true);
    expect((await deriveBackupKey(PASSPHRASE, newBackupSalt())).equals(key)).toBe(false);
    expect((await deriveBackupKey(`${PASSPHRASE}!`, salt)).equals(key)).toBe(false);
  });

  it('round-trips a value bound to its setting, and refuses another key, setting or altered bytes', async () => {
    const salt = newBackupSalt();
    const key = await deriveBackupKey(PASSPHRASE, salt);
    const aad = settingAad('smtp', 'password');
    const envelope = encryptValue(key, aad, 'mot de passe ✓');
    expect(envelope.startsWith(ENVELOPE_PREFIX)).toBe(true);
    expect(isEnvelope(envelope)).toBe(true);
    expect(envelope).not.toContain('mot de passe');
    expect(encryptValue(key, aad, 'mot de passe ✓')).not.toBe(envelope);
    expect(decryptValue(key, aad, envelope)).toBe('mot de passe ✓');

    const otherKey = await deriveBackupKey('une-autre-cle-de-sauvegarde-0123456789-xyz', salt);
    expect(decryptValue(otherKey, aad, envelope)).toBeUndefined();
    expect(decryptValue(key, settingAad('stripe', 'secret_key_test'), envelope)).toBeUndefined();
    const body = Buffer.from(envelope.slice(ENVELOPE_PREFIX.length), 'base64url');
    body[body.length - 20] = body[body.length - 20]! ^ 1;
    expect(decryptValue(key, aad, `${ENVELOPE_PREFIX}${body.toString('base64url')}`)).toBeUndefined();
    expect(decryptValue(key, aad, `${ENVELOPE_PREFIX}abc`)).toBeUndefined();
    expect(decryptValue(key, aad, 'clair')).toBeUndefined();
  });

  it('tells a wrong key from the archive key check', async () => {
    const salt = newBackupSalt();
    const key = await deriveBackupKey(PASSPHRASE, salt);
    const check = keyCheckOf(key);
    expect(keyMatches(key, check)).toBe(true);
    expect(keyMatches(await deriveBackupKey('une-autre-cle-de-sauvegarde-0123456789-xyz', salt), check)).toBe(
      false,
    );
  });

  it('takes BACKUP_ENCRYPTION_KEY from the environment: 32 characters at least, unset means none', () => {
    expect(loadConfig({ BACKUP_ENCRYPTION_KEY: PASSPHRASE }).backupEncryptionKey).toBe(PASSPHRASE);
    expect(loadConfig({}).backupEncryptionKey).toBeUndefined();
    expect(loadConfig({ BACKUP_ENCRYPTION_KEY: '' }).backupEncryptionKey).toBeUndefined();
    expect(() => loadConfig({ BACKUP_ENCRYPTION_KEY: 'trop-courte' })).toThrow(/at least 32 characters/);
  });
});
