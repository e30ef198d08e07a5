import { describe, expect, it } from 'vitest';
import {
  ENCRYPTED_NAME,
  ZRenameFileRequest,
  ZRenameFolderRequest,
  ZUploadFields,
  encryptedFileSize,
  isEncryptedName,
  isFolderPath,
  isNewFileId,
  isSealedMeta,
  parseWrappedFileKey,
  plainFileSize,
  sealedMetaEpoch,
} from './ring-files';

/** Base64url segments of the lengths AES-GCM-SIV names have (the e2ee agreement is tested server-side). */
const segment = (length: number, fill = 'Ab3_-') =>
  fill.repeat(Math.ceil(length / fill.length)).slice(0, length);

describe('sealed metadata blobs (issue 27)', () => {
  const HASH = 'a1'.repeat(32);
  const blob = (signer: string, body: number, sig = 86, epoch = '3', seq = '12') =>
    `m2.${epoch}.${seq}.${HASH}.${signer}.${segment(body)}.${segment(sig)}`;

  it('accepts the wire shape of a sealed blob, whatever its padding bucket, and reads its epoch', () => {
    for (const body of [379, 720, 1403, 2768])
      expect(isSealedMeta(blob('alice-1', body)), String(body)).toBe(true);
    expect(isSealedMeta(blob('a'.repeat(128), 2768, 86, '4294967295', '1000000000'))).toBe(true);
    expect(sealedMetaEpoch(blob('alice', 379))).toBe(3);
    expect(sealedMetaEpoch('m2.x')).toBeUndefined();
  });

  it('refuses names in clear, other versions, missing parts and oversized blobs', () => {
    for (const value of [
      'contrat_signé.pdf',
      '',
      blob('alice', 379).replace('m2.', 'm1.'),
      // The format of before the log pin and the version (issue 27 follow-up): no longer accepted.
      `m1.alice.${segment(379)}.${segment(86)}`,
      blob('alice', 379, 86, '01'),
      blob('alice', 379, 86, '3', '-1'),
      blob('alice', 379).replace(HASH, 'A1'.repeat(32)),
      blob('alice', 379).replace(HASH, 'a1'.repeat(31)),
      blob('alice', 379, 85),
      blob('al.ice', 379),
      blob('alice', 3000),
      `${blob('alice', 379)}.x`,
      blob('alice', 379).replace('.', '/'),
    ])
      expect(isSealedMeta(value), value).toBe(false);
  });
});

describe('encrypted names and paths', () => {
  it('accepts base64url segments of a possible encrypted name length', () => {
    for (const length of [ENCRYPTED_NAME.minLength, 24, 26, 27, 28, 100, ENCRYPTED_NAME.maxLength])
      expect(isEncryptedName(segment(length)), String(length)).toBe(true);
  });

  it('refuses names in clear, and anything that could move out of a folder', () => {
    for (const value of [
      'photo.jpg',
      'a',
      '',
      '.',
      '..',
      'a/b',
      segment(22),
      segment(25),
      `${segment(30)}=`,
      segment(1383),
    ])
      expect(isEncryptedName(value), value).toBe(false);
  });

  it('takes paths of encrypted segments, "" for the root', () => {
    const a = segment(23, 'Docs');
    const b = segment(24, 'y2026');
    expect(isFolderPath('')).toBe(true);
    expect(isFolderPath(`${a}/${b}`)).toBe(true);
    expect(isFolderPath(`${a}/`)).toBe(false);
    expect(isFolderPath(`/${a}`)).toBe(false);
    expect(isFolderPath(`${a}//${b}`)).toBe(false);
    expect(isFolderPath(`${a}/../${b}`)).toBe(false);
    expect(isFolderPath(Array.from({ length: 33 }, () => a).join('/'))).toBe(false);
    expect(isFolderPath(Array.from({ length: 3 }, () => segment(1000)).join('/'))).toBe(false);
  });
});

describe('encrypted sizes (SRF1: 12-byte header, a 16-byte tag per 64 KiB chunk)', () => {
  it('adds the header and one tag per chunk, at least one', () => {
    expect(encryptedFileSize(0)).toBe(28);
    expect(encryptedFileSize(1)).toBe(29);
    expect(encryptedFileSize(65_536)).toBe(65_564);
    expect(encryptedFileSize(65_537)).toBe(65_581);
  });

  it('gives the plain size back, and nothing for sizes no SRF1 file has', () => {
    for (const plain of [0, 1, 65_535, 65_536, 65_537, 10 * 1024 * 1024])
      expect(plainFileSize(encryptedFileSize(plain))).toBe(plain);
    for (const cipher of [0, 27, 65_580, 131_132])
      expect(plainFileSize(cipher), String(cipher)).toBeUndefined();
  });
});

describe('the calls', () => {
  const name = segment(30);
  const key = JSON.stringify({ v: 1, epoch: 3, iv: 'A'.repeat(16), ct: 'B'.repeat(64) });

  it('reads upload fields with their French errors', () => {
    const parsed = ZUploadFields.parse({
      name,
      file_key: key,
      file_id: '3f0c2c52-8d56-4d4e-9d5e-1f2a3b4c5d6e',
    });
    expect(parsed).toMatchObject({ folder: '', extension: '', file_key: { epoch: 3 } });
    const errors = (input: object) => ZUploadFields.safeParse(input).error?.issues.map((i) => i.message);
    expect(errors({ name: 'a.txt', file_key: key })).toEqual(['Nom de fichier ou de dossier invalide']);
    expect(errors({ name })).toEqual(['Clé de fichier manquante']);
    expect(errors({ name, file_key: '{"v":1}' })).toEqual(['Clé de fichier invalide']);
    expect(errors({ name, file_key: key, file_id: '01234567-89ab-7def-8123-456789abcdef' })).toEqual([
      'Identifiant de fichier invalide',
    ]);
    expect(errors({ name, file_key: key, extension: 'pdf' })).toEqual([
      'Nom de fichier ou de dossier invalide',
    ]);
  });

  it('ignores blank renames rather than refusing them (spec 2 §5)', () => {
    const id = '3f0c2c52-8d56-4d4e-9d5e-1f2a3b4c5d6e';
    expect(ZRenameFileRequest.parse({ id, new_name: '   ' }).new_name).toBe('');
    expect(ZRenameFolderRequest.parse({ old_path: name, new_path: '' }).new_path).toBe('');
    expect(ZRenameFileRequest.safeParse({ id, new_name: 'clair.txt' }).success).toBe(false);
    expect(ZRenameFileRequest.safeParse({ id: '../x', new_name: name }).error?.issues[0]?.message).toBe(
      'Fichier introuvable',
    );
  });

  it('reads wrapped keys strictly', () => {
    expect(parseWrappedFileKey(key)).toEqual({ v: 1, epoch: 3, iv: 'A'.repeat(16), ct: 'B'.repeat(64) });
    expect(parseWrappedFileKey('{"v":1,"epoch":0,"iv":"","ct":""}')).toBeUndefined();
    expect(parseWrappedFileKey(key.replace('}', ',"extra":1}'))).toBeUndefined();
    expect(parseWrappedFileKey('not json')).toBeUndefined();
    expect(isNewFileId('3f0c2c52-8d56-4d4e-9d5e-1f2a3b4c5d6e')).toBe(true);
    expect(isNewFileId('3f0c2c52-8d56-7d4e-9d5e-1f2a3b4c5d6e')).toBe(false);
  });
});
