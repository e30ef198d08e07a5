import { describe, expect, it } from 'vitest';
import { fromBase64, fromHex, toBase64, toHex, utf8Encode } from './encoding';
import { exportPublicIdentity, generateIdentity } from './identity';
import {
  DEFAULT_ARGON2ID,
  DEFAULT_KDF_ITERATIONS,
  HIGH_KDF_ITERATIONS,
  LEGACY_KDF_ITERATIONS,
  MAX_KDF_ITERATIONS,
} from './levels';
import {
  type MemberKeyRecord,
  argon2idBytes,
  deriveKek,
  openIdentity,
  openIdentityWithRecoveryKey,
  recordNeedsUpgrade,
  resealRecord,
  sealIdentity,
  upgradeRecord,
  validateNewPassphrase,
  validateRecordShape,
} from './member-record';
import { generateRecoveryKey } from './recovery-key';
import { signDetached, verifyDetached } from './signing';
import { expectCode, flipBase64, flipBit } from './test-support';

const PASSPHRASE = 'cheval agrafe batterie correcte';
const MEMBER = '0193a6f0-7c1e-7b2a-9f00-000000000001';
const FAST = { memberId: MEMBER, iterations: LEGACY_KDF_ITERATIONS };

async function sealed(): Promise<{ record: MemberKeyRecord }> {
  return { record: await sealIdentity(await generateIdentity(), PASSPHRASE, FAST) };
}

describe('member key record', () => {
  it('derives the KEK with PBKDF2-HMAC-SHA-256 (RFC 7914 §11 vector: Password / NaCl / 80000)', async () => {
    const kek = await deriveKek('Password', utf8Encode('NaCl'), 80_000);
    const expected = await globalThis.crypto.subtle.importKey(
      'raw',
      fromHex('4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56'),
      'AES-GCM',
      false,
      ['encrypt'],
    );
    // The KEK is non-extractable: compare what it encrypts with what the expected bytes encrypt.
    const probe = async (key: CryptoKey) =>
      new Uint8Array(
        await globalThis.crypto.subtle.encrypt(
          { name: 'AES-GCM', iv: new Uint8Array(12) },
          key,
          new Uint8Array(16),
        ),
      );
    expect(await probe(kek)).toEqual(await probe(expected));
    expect(kek.extractable).toBe(false);
  });

  it('seals with the spec field names and sizes, and opens with non-extractable keys', async () => {
    const identity = await generateIdentity();
    const record = await sealIdentity(identity, PASSPHRASE, FAST);
    expect(Object.keys(record).sort()).toEqual([
      'hmac_hex',
      'iv_b64',
      'kdf_iters',
      'kdf_salt_b64',
      'wrapped_dek',
    ]);
    expect(record.kdf_iters).toBe(LEGACY_KDF_ITERATIONS);
    expect(fromBase64(record.kdf_salt_b64)).toHaveLength(16);
    expect(fromBase64(record.iv_b64)).toHaveLength(12);
    expect(fromBase64(record.wrapped_dek)).toHaveLength(128);
    expect(record.hmac_hex).toMatch(/^[0-9a-f]{32}$/);
    expect(validateRecordShape(record)).toBeUndefined();
    // Nothing of the passphrase or the private keys in clear.
    expect(JSON.stringify(record)).not.toContain('cheval');

    const opened = await openIdentity(record, PASSPHRASE, { memberId: MEMBER });
    expect(opened.agreement.privateKey.extractable).toBe(false);
    expect(opened.signing.privateKey.extractable).toBe(false);
    expect(await exportPublicIdentity(opened)).toEqual(await exportPublicIdentity(identity));
    const sig = await signDetached(opened.signing.privateKey, 'test/v1', new Uint8Array([7]));
    expect(await verifyDetached(identity.signing.publicKey, 'test/v1', new Uint8Array([7]), sig)).toBe(true);
  });

  it('uses a fresh salt and IV for every seal', async () => {
    const identity = await generateIdentity();
    const a = await sealIdentity(identity, PASSPHRASE, FAST);
    const b = await sealIdentity(identity, PASSPHRASE, FAST);
    expect(a.kdf_salt_b64).not.toBe(b.kdf_salt_b64);
    expect(a.iv_b64).not.toBe(b.iv_b64);
    expect(a.wrapped_dek).not.toBe(b.wrapped_dek);
  });

  it('refuses a wrong passphrase, with no fallback', async () => {
    const { record } = await sealed();
    await expectCode(
      openIdentity(record, 'cheval agrafe batterie correctE', { memberId: MEMBER }),
      'wrong_passphrase',
    );
    await expectCode(openIdentity(record, '', { memberId: MEMBER }), 'wrong_passphrase');
  });

  it('cannot be opened as another member', async () => {
    const { record } = await sealed();
    await expectCode(openIdentity(record, PASSPHRASE, { memberId: `${MEMBER}x` }), 'wrong_passphrase');
  });

  it('rejects every altered field', async () => {
    const { record } = await sealed();
    const altered: [string, MemberKeyRecord][] = [
      ['kdf_salt_b64', { ...record, kdf_salt_b64: flipBase64(record.kdf_salt_b64, 3) }],
      ['kdf_iters', { ...record, kdf_iters: record.kdf_iters + 1 }],
      ['iv_b64', { ...record, iv_b64: flipBase64(record.iv_b64, 11) }],
      ['wrapped_dek', { ...record, wrapped_dek: flipBase64(record.wrapped_dek, 64) }],
      ['wrapped_dek (last byte)', { ...record, wrapped_dek: flipBase64(record.wrapped_dek, -1) }],
      ['hmac_hex', { ...record, hmac_hex: toHex(flipBit(fromHex(record.hmac_hex), 15, 7)) }],
    ];
    for (const [, record] of altered) {
      await expectCode(openIdentity(record, PASSPHRASE, { memberId: MEMBER }), 'wrong_passphrase');
    }
    const malformed: MemberKeyRecord[] = [
      { ...record, kdf_iters: LEGACY_KDF_ITERATIONS - 1 },
      { ...record, kdf_iters: MAX_KDF_ITERATIONS + 1 },
      { ...record, kdf_iters: 150_000.5 },
      { ...record, kdf_salt_b64: toBase64(new Uint8Array(15)) },
      { ...record, iv_b64: toBase64(new Uint8Array(16)) },
      { ...record, wrapped_dek: toBase64(fromBase64(record.wrapped_dek).subarray(1)) },
      { ...record, hmac_hex: record.hmac_hex.toUpperCase() },
      { ...record, hmac_hex: record.hmac_hex.slice(2) },
    ];
    for (const record of malformed) {
      expect(validateRecordShape(record)).toMatch(/^Enregistrement de clé invalide \(/);
      await expectCode(openIdentity(record, PASSPHRASE, { memberId: MEMBER }), 'invalid_format');
    }
    expect(validateRecordShape(null)).toBe('Enregistrement de clé invalide');
    expect(validateRecordShape({ ...record, kdf_iters: '600000' })).toBe(
      'Enregistrement de clé invalide (kdf_iters)',
    );
  });

  it('opens a legacy 120,000-iteration record, reports it, and upgrades it', async () => {
    const identity = await generateIdentity();
    const legacy = await sealIdentity(identity, PASSPHRASE, FAST);
    expect(recordNeedsUpgrade(legacy, DEFAULT_KDF_ITERATIONS)).toBe(true);
    expect(await exportPublicIdentity(await openIdentity(legacy, PASSPHRASE, { memberId: MEMBER }))).toEqual(
      await exportPublicIdentity(identity),
    );

    const upgraded = await upgradeRecord(legacy, PASSPHRASE, {
      memberId: MEMBER,
      iterations: DEFAULT_KDF_ITERATIONS,
    });
    expect(upgraded.kdf_iters).toBe(DEFAULT_KDF_ITERATIONS);
    expect(upgraded.kdf_salt_b64).not.toBe(legacy.kdf_salt_b64);
    expect(upgraded.iv_b64).not.toBe(legacy.iv_b64);
    expect(recordNeedsUpgrade(upgraded, DEFAULT_KDF_ITERATIONS)).toBe(false);
    expect(recordNeedsUpgrade(upgraded, HIGH_KDF_ITERATIONS)).toBe(true);
    const reopened = await openIdentity(upgraded, PASSPHRASE, { memberId: MEMBER });
    expect(await exportPublicIdentity(reopened)).toEqual(await exportPublicIdentity(identity));

    await expectCode(
      upgradeRecord(legacy, 'not the passphrase', { memberId: MEMBER, iterations: DEFAULT_KDF_ITERATIONS }),
      'wrong_passphrase',
    );
    await expectCode(
      upgradeRecord(upgraded, PASSPHRASE, { memberId: MEMBER, iterations: LEGACY_KDF_ITERATIONS }),
      'invalid_format',
    );
  });

  it('normalizes the passphrase (NFC), so a decomposed accent opens the record', async () => {
    const identity = await generateIdentity();
    const record = await sealIdentity(identity, 'phrase secrète très longue', FAST);
    const decomposed = 'phrase secrète très longue'.normalize('NFD');
    expect(decomposed).not.toBe('phrase secrète très longue');
    await expect(openIdentity(record, decomposed, { memberId: MEMBER })).resolves.toBeDefined();
  });

  it('checks new passphrases with French messages and refuses weak ones when sealing', async () => {
    expect(validateNewPassphrase('court', 'court')).toBe(
      'La phrase secrète doit contenir au moins 12 caractères',
    );
    expect(validateNewPassphrase('onze carac.', 'onze carac.')).toBe(
      'La phrase secrète doit contenir au moins 12 caractères',
    );
    expect(validateNewPassphrase('douze carac.', 'douze carac!')).toBe(
      'Les phrases secrètes ne correspondent pas',
    );
    expect(validateNewPassphrase('douze carac.', 'douze carac.')).toBeUndefined();
    // Characters, not UTF-16 units: 11 emoji are 22 units but still too short.
    expect(validateNewPassphrase('🔐'.repeat(11), '🔐'.repeat(11))).toBeDefined();
    const identity = await generateIdentity();
    await expectCode(sealIdentity(identity, 'onze carac.', FAST), 'weak_passphrase');
    await expectCode(
      sealIdentity(identity, PASSPHRASE, { memberId: MEMBER, iterations: 1000 }),
      'invalid_format',
    );
    await expectCode(
      sealIdentity(identity, PASSPHRASE, { memberId: '', iterations: LEGACY_KDF_ITERATIONS }),
      'invalid_format',
    );
  });
});

// Argon2id at 64 MiB costs about a second per derivation on a busy 2-core machine.
const SLOW = 60_000;

describe('member key record with Argon2id (M1)', () => {
  it(
    'derives with Argon2id (RFC 9106 v0x13, as the reference argon2 CLI: 64 MiB, 3 passes, 1 lane)',
    async () => {
      // The reference implementation (Debian package argon2):
      // echo -n password | argon2 somesalt -id -t 3 -m 16 -p 1 -l 32 -r
      const raw = await argon2idBytes('password', utf8Encode('somesalt'), {
        iterations: 3,
        memoryKib: 65536,
      });
      expect(toHex(raw)).toBe('9e8789c8b42834220afc00085ac73acc308651216994abbfddd69b2592032efd');
    },
    SLOW,
  );

  it(
    'seals new records with Argon2id, 64 MiB or more, and refuses records that ask for less',
    async () => {
      const identity = await generateIdentity();
      const record = await sealIdentity(identity, PASSPHRASE, { memberId: MEMBER });
      expect(record.kdf).toBe('argon2id');
      expect(record.kdf_mem_kib).toBeGreaterThanOrEqual(64 * 1024);
      expect(record.kdf_iters).toBe(DEFAULT_ARGON2ID.iterations);
      expect(validateRecordShape(record)).toBeUndefined();
      const opened = await openIdentity(record, PASSPHRASE, { memberId: MEMBER });
      expect(await exportPublicIdentity(opened)).toEqual(await exportPublicIdentity(identity));
      await expectCode(openIdentity(record, `${PASSPHRASE}!`, { memberId: MEMBER }), 'wrong_passphrase');
      // The server cannot lower the cost: the record no longer opens (or is refused outright).
      await expectCode(
        openIdentity({ ...record, kdf_iters: 1 }, PASSPHRASE, { memberId: MEMBER }),
        'wrong_passphrase',
      );
      expect(validateRecordShape({ ...record, kdf_mem_kib: 32 * 1024 })).toBe(
        'Enregistrement de clé invalide (kdf_mem_kib)',
      );
      expect(validateRecordShape({ ...record, kdf_iters: 0 })).toBe(
        'Enregistrement de clé invalide (kdf_iters)',
      );
      expect(validateRecordShape({ ...record, kdf: 'scrypt' })).toBe('Enregistrement de clé invalide (kdf)');
      // Dropping the KDF field makes it a PBKDF2 record with 3 iterations: refused.
      expect(validateRecordShape({ ...record, kdf: undefined })).toBe(
        'Enregistrement de clé invalide (kdf_iters)',
      );
    },
    SLOW,
  );

  it(
    'opens an older PBKDF2 record and re-seals it with Argon2id, same keys',
    async () => {
      const identity = await generateIdentity();
      const legacy = await sealIdentity(identity, PASSPHRASE, {
        memberId: MEMBER,
        iterations: DEFAULT_KDF_ITERATIONS,
      });
      expect(recordNeedsUpgrade(legacy, DEFAULT_ARGON2ID)).toBe(true);
      const upgraded = await upgradeRecord(legacy, PASSPHRASE, {
        memberId: MEMBER,
        argon2id: DEFAULT_ARGON2ID,
      });
      expect(upgraded).toMatchObject({ kdf: 'argon2id', kdf_mem_kib: DEFAULT_ARGON2ID.memoryKib });
      expect(recordNeedsUpgrade(upgraded, DEFAULT_ARGON2ID)).toBe(false);
      expect(recordNeedsUpgrade(upgraded, { iterations: 4, memoryKib: DEFAULT_ARGON2ID.memoryKib })).toBe(
        true,
      );
      const reopened = await openIdentity(upgraded, PASSPHRASE, { memberId: MEMBER });
      expect(await exportPublicIdentity(reopened)).toEqual(await exportPublicIdentity(identity));
      // Never back to PBKDF2.
      await expectCode(
        upgradeRecord(upgraded, PASSPHRASE, { memberId: MEMBER, iterations: MAX_KDF_ITERATIONS }),
        'invalid_format',
      );
    },
    SLOW,
  );
});

describe('recovery key (« Clé de secours »)', () => {
  it(
    'opens the record without the passphrase, and sets a new passphrase',
    async () => {
      const identity = await generateIdentity();
      const recoveryKey = generateRecoveryKey();
      const record = await sealIdentity(identity, PASSPHRASE, { memberId: MEMBER, recoveryKey });
      expect(validateRecordShape(record)).toBeUndefined();
      expect(JSON.stringify(record)).not.toContain(recoveryKey.slice(0, 4) + recoveryKey.slice(5, 9));

      // Typed back by hand: lower case, spaces instead of hyphens.
      const typed = recoveryKey.toLowerCase().replace(/-/g, ' ');
      const opened = await openIdentityWithRecoveryKey(record, typed, { memberId: MEMBER });
      expect(opened.signing.privateKey.extractable).toBe(false);
      expect(await exportPublicIdentity(opened)).toEqual(await exportPublicIdentity(identity));

      await expectCode(
        openIdentityWithRecoveryKey(record, generateRecoveryKey(), { memberId: MEMBER }),
        'wrong_passphrase',
      );
      await expectCode(
        openIdentityWithRecoveryKey(record, recoveryKey, { memberId: `${MEMBER}x` }),
        'wrong_passphrase',
      );
      await expectCode(
        openIdentityWithRecoveryKey(record, 'ABCD-EFGH', { memberId: MEMBER }),
        'invalid_format',
      );
      const altered = {
        ...record,
        recovery: { ...record.recovery!, wrapped_dek: flipBase64(record.recovery!.wrapped_dek, 5) },
      };
      await expectCode(
        openIdentityWithRecoveryKey(altered, recoveryKey, { memberId: MEMBER }),
        'wrong_passphrase',
      );
      expect(validateRecordShape({ ...record, recovery: { ...record.recovery!, iv_b64: 'AAAA' } })).toBe(
        'Enregistrement de clé invalide (recovery)',
      );

      const NEW = 'nouvelle phrase après oubli';
      const renewed = await resealRecord(record, { recoveryKey }, { memberId: MEMBER, newPassphrase: NEW });
      expect(renewed.kdf).toBe('argon2id');
      expect(renewed.recovery).toEqual(record.recovery);
      expect(await exportPublicIdentity(await openIdentity(renewed, NEW, { memberId: MEMBER }))).toEqual(
        await exportPublicIdentity(identity),
      );
      await expectCode(openIdentity(renewed, PASSPHRASE, { memberId: MEMBER }), 'wrong_passphrase');
      // The recovery key still opens the renewed record.
      await expect(
        openIdentityWithRecoveryKey(renewed, recoveryKey, { memberId: MEMBER }),
      ).resolves.toBeDefined();
      await expectCode(resealRecord(record, { recoveryKey }, { memberId: MEMBER }), 'weak_passphrase');
      await expectCode(
        resealRecord(record, { recoveryKey }, { memberId: MEMBER, newPassphrase: 'trop court' }),
        'weak_passphrase',
      );
    },
    SLOW,
  );

  it(
    'is added to an existing record at unlock, and a record without it says so',
    async () => {
      const identity = await generateIdentity();
      const record = await sealIdentity(identity, PASSPHRASE, FAST);
      const recoveryKey = generateRecoveryKey();
      await expectCode(openIdentityWithRecoveryKey(record, recoveryKey, { memberId: MEMBER }), 'missing_key');
      const withCopy = await resealRecord(
        record,
        { passphrase: PASSPHRASE },
        { memberId: MEMBER, recoveryKey },
      );
      expect(withCopy.kdf).toBe('argon2id');
      const opened = await openIdentityWithRecoveryKey(withCopy, recoveryKey, { memberId: MEMBER });
      expect(await exportPublicIdentity(opened)).toEqual(await exportPublicIdentity(identity));
    },
    SLOW,
  );
});
