import {
  ENCRYPTED_NAME,
  RING_FILES_MESSAGES,
  encryptedFileSize,
  isEncryptedName,
  maxEncryptedFileBytes,
  plainFileSize,
} from '@securering/contract';
import { ciphertextSize, encryptName, plaintextSize } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import {
  fileSharingAllowed,
  folderRenamePlan,
  isSameOrInside,
  joinPath,
  lastSegment,
  maxFileBytesOf,
  mayManageFile,
  mayShareFileKeys,
  isFolderMetaMigration,
  mayManageFolder,
  parentOf,
  parseByteRange,
  uploadAllowance,
  uploadRefusal,
} from './ring-files.policy';

const owner = { id: 'o', role: 'owner' as const };
const admin = { id: 'a', role: 'admin' as const };
const member = { id: 'm', role: 'member' as const };

describe('who may do what in the file space', () => {
  it('has no file sharing on the starter plan only (spec 2 §6)', () => {
    expect(fileSharingAllowed('starter')).toBe(false);
    expect(fileSharingAllowed('professional')).toBe(true);
    expect(fileSharingAllowed('enterprise')).toBe(true);
    expect(fileSharingAllowed('offre-sur-mesure')).toBe(true);
  });

  it('lets members manage their own files, owner and admins every file', () => {
    expect(mayManageFile(member, { uploaded_by_member_id: 'm' })).toBe(true);
    expect(mayManageFile(member, { uploaded_by_member_id: 'x' })).toBe(false);
    expect(mayManageFile(member, { uploaded_by_member_id: null })).toBe(false);
    expect(mayManageFile(admin, { uploaded_by_member_id: 'x' })).toBe(true);
    expect(mayManageFile(owner, { uploaded_by_member_id: null })).toBe(true);
  });

  it('lets members manage the folders they created, owner and admins every folder', () => {
    expect(mayManageFolder(member, { created_by_member_id: 'm' })).toBe(true);
    expect(mayManageFolder(member, { created_by_member_id: 'x' })).toBe(false);
    expect(mayManageFolder(member, { created_by_member_id: null })).toBe(false);
    expect(mayManageFolder(admin, { created_by_member_id: null })).toBe(true);
    expect(mayManageFolder(owner, { created_by_member_id: 'x' })).toBe(true);
  });

  it('lets any member migrate a folder’s metadata only to a newer epoch (issue 27: names rotate)', () => {
    const sealed = (epoch: number) =>
      `m2.${epoch}.4.${'ab'.repeat(32)}.alice.${'A'.repeat(379)}.${'B'.repeat(86)}`;
    expect(isFolderMetaMigration(null, sealed(1))).toBe(true);
    expect(isFolderMetaMigration(sealed(1), sealed(2))).toBe(true);
    expect(isFolderMetaMigration(sealed(2), sealed(2))).toBe(false);
    expect(isFolderMetaMigration(sealed(3), sealed(2))).toBe(false);
    expect(isFolderMetaMigration(sealed(1), undefined)).toBe(false);
    expect(isFolderMetaMigration(null, 'm2.pas-du-tout')).toBe(false);
  });

  it('lets those who admit give existing files to a newcomer: owner and admins, admitted and active', () => {
    const admitted = { status: 'active' as const, admitted_seq: 3 };
    expect(mayShareFileKeys({ ...owner, ...admitted })).toBe(true);
    expect(mayShareFileKeys({ ...admin, ...admitted })).toBe(true);
    expect(mayShareFileKeys({ ...member, ...admitted })).toBe(false);
    expect(mayShareFileKeys({ ...admin, ...admitted, admitted_seq: null })).toBe(false);
    expect(mayShareFileKeys({ ...admin, ...admitted, status: 'inactive' })).toBe(false);
  });
});

describe('quota and size before an upload', () => {
  const budget = { quotaBytes: 1000, usedBytes: 300, reservedBytes: 200, maxFileBytes: 400 };

  it('refuses what cannot fit, by size first', () => {
    expect(uploadAllowance(budget, { declaredBytes: 401 })).toEqual({ ok: false, reason: 'too_large' });
    expect(uploadAllowance(budget, { declaredBytes: 501 })).toEqual({ ok: false, reason: 'too_large' });
    expect(uploadAllowance({ ...budget, maxFileBytes: 900 }, { declaredBytes: 501 })).toEqual({
      ok: false,
      reason: 'quota',
    });
    expect(uploadAllowance(budget, { lowerBoundBytes: 450 })).toEqual({ ok: false, reason: 'too_large' });
  });

  it('reserves the declared size exactly', () => {
    expect(uploadAllowance(budget, { declaredBytes: 400 })).toEqual({
      ok: true,
      reserveBytes: 400,
      limitedBy: 'declared',
    });
    expect(uploadAllowance(budget, { declaredBytes: 0 })).toMatchObject({ ok: true, reserveBytes: 0 });
  });

  it('otherwise reserves the tightest known bound, and says which one', () => {
    expect(uploadAllowance(budget, { upperBoundBytes: 350, lowerBoundBytes: 0 })).toEqual({
      ok: true,
      reserveBytes: 350,
      limitedBy: 'length',
    });
    expect(uploadAllowance(budget, { upperBoundBytes: 10_000 })).toEqual({
      ok: true,
      reserveBytes: 400,
      limitedBy: 'size',
    });
    expect(uploadAllowance({ ...budget, reservedBytes: 500 }, {})).toEqual({
      ok: true,
      reserveBytes: 200,
      limitedBy: 'quota',
    });
  });

  it('counts other reservations: nothing left means refused', () => {
    const full = { ...budget, reservedBytes: 700 };
    expect(uploadAllowance(full, { declaredBytes: 1 })).toEqual({ ok: false, reason: 'quota' });
    expect(uploadAllowance({ ...budget, usedBytes: 2000 }, { declaredBytes: 1 })).toEqual({
      ok: false,
      reason: 'quota',
    });
  });

  it('explains each refusal in French', () => {
    expect(uploadRefusal('too_large', 10)).toBe('Fichier trop volumineux\u202f: 10 Mo maximum dans ce Ring');
    expect(uploadRefusal('size', 25)).toBe(RING_FILES_MESSAGES.fileTooLarge(25));
    expect(uploadRefusal('quota', 10)).toBe(RING_FILES_MESSAGES.quotaExceeded);
    expect(uploadRefusal('declared', 10)).toBe(RING_FILES_MESSAGES.sizeMismatch);
    expect(uploadRefusal('length', 10)).toBe(RING_FILES_MESSAGES.uploadInterrupted);
  });

  it('allows a file of exactly the Ring’s Mo (MiB) once encrypted', () => {
    expect(maxFileBytesOf({ max_file_size_mb: 10 })).toBe(maxEncryptedFileBytes(10));
    expect(maxEncryptedFileBytes(1)).toBe(12 + 1024 * 1024 + 16 * 16);
  });
});

describe('folder paths', () => {
  it('joins, splits and compares paths of segments', () => {
    expect(joinPath('', 'a')).toBe('a');
    expect(joinPath('a/b', 'c')).toBe('a/b/c');
    expect(parentOf('a')).toBe('');
    expect(parentOf('a/b/c')).toBe('a/b');
    expect(lastSegment('a/b/c')).toBe('c');
    expect(lastSegment('a')).toBe('a');
    expect(isSameOrInside('a/b', 'a')).toBe(true);
    expect(isSameOrInside('a', 'a')).toBe(true);
    expect(isSameOrInside('ab', 'a')).toBe(false);
  });

  it('ignores blank or unchanged renames and refuses moving a folder into itself (spec 2 §5)', () => {
    expect(folderRenamePlan('a', '')).toBe('unchanged');
    expect(folderRenamePlan('a', 'a')).toBe('unchanged');
    expect(folderRenamePlan('a', 'a/b')).toBe('into_itself');
    expect(folderRenamePlan('a', 'ab')).toBe('move');
    expect(folderRenamePlan('a/b', 'c')).toBe('move');
  });
});

describe('download ranges', () => {
  it('reads one byte range', () => {
    expect(parseByteRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseByteRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
  });

  it('says when a range starts past the end', () => {
    expect(parseByteRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=0-', 0)).toBe('unsatisfiable');
  });

  it('sends the whole file for anything else', () => {
    expect(parseByteRange(undefined, 100)).toBeUndefined();
    expect(parseByteRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(parseByteRange('items=0-1', 100)).toBeUndefined();
    expect(parseByteRange('bytes=9-1', 100)).toBeUndefined();
    expect(parseByteRange('bytes=-', 100)).toBeUndefined();
    expect(parseByteRange(`bytes=${'9'.repeat(30)}-`, 100)).toBeUndefined();
  });
});

describe('the contract’s rules agree with what packages/e2ee produces', () => {
  const namesKey = new Uint8Array(32).fill(7);

  it('accepts every name the browser encrypts, from 1 to 255 characters', () => {
    for (const name of ['a', 'Contrat signé.pdf', '📁 Photos', 'x'.repeat(255), '語'.repeat(255)])
      expect(isEncryptedName(encryptName(namesKey, 'ring-1', name)), name).toBe(true);
    expect(encryptName(namesKey, 'ring-1', 'a').length).toBe(ENCRYPTED_NAME.minLength);
    expect(encryptName(namesKey, 'ring-1', '\u{10000}'.repeat(255)).length).toBe(ENCRYPTED_NAME.maxLength);
  });

  it('computes the STREAM sizes exactly', () => {
    for (const plain of [0, 1, 65_535, 65_536, 65_537, 131_072, 10 * 1024 * 1024, 123_456_789]) {
      expect(encryptedFileSize(plain), String(plain)).toBe(ciphertextSize(plain));
      expect(plainFileSize(ciphertextSize(plain)), String(plain)).toBe(plain);
    }
    for (const cipher of [0, 27, 28, 65_580, 131_132, 131_160, 1_000_000]) {
      let expected: number | undefined;
      try {
        expected = plaintextSize(cipher);
      } catch {
        expected = undefined;
      }
      expect(plainFileSize(cipher), String(cipher)).toBe(expected);
    }
  });
});
