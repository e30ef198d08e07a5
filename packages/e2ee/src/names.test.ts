import { gcmsiv } from '@noble/ciphers/aes.js';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, fromHex, randomBytes, toBase64Url, toHex } from './encoding';
import { MAX_NAME_LENGTH, decryptName, decryptPath, encryptName, encryptPath } from './names';
import { expectThrowsCode, flipBit } from './test-support';

const RING = 'ring-1';

describe('name encryption (AES-256-GCM-SIV)', () => {
  it('wires @noble/ciphers gcmsiv as RFC 8452 AEAD_AES_256_GCM_SIV (appendix C.2 vectors)', () => {
    const key = fromHex('0100000000000000000000000000000000000000000000000000000000000000');
    const nonce = fromHex('030000000000000000000000');
    expect(toHex(gcmsiv(key, nonce).encrypt(fromHex('0100000000000000')))).toBe(
      'c2ef328e5c71c83b843122130f7364b761e0b97427e3df28',
    );
    expect(toHex(gcmsiv(key, nonce, fromHex('01')).encrypt(fromHex('0200000000000000')))).toBe(
      '1de22967237a813291213f267e3b452f02d01ae33e4ec854',
    );
  });

  it('round-trips names deterministically, per Ring, without "/"', () => {
    const key = randomBytes(32);
    for (const name of [
      'rapport.pdf',
      'Été 2026 — photos',
      '🔐',
      'a'.repeat(MAX_NAME_LENGTH),
      '日本語'.repeat(85),
    ]) {
      const encrypted = encryptName(key, RING, name);
      expect(encrypted).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(encrypted).not.toContain(name);
      expect(encryptName(key, RING, name)).toBe(encrypted);
      expect(encryptName(key, 'ring-2', name)).not.toBe(encrypted);
      expect(decryptName(key, RING, encrypted)).toBe(name);
    }
    expect(encryptName(key, RING, 'a.txt')).not.toBe(encryptName(key, RING, 'b.txt'));
    expect(encryptName(randomBytes(32), RING, 'a.txt')).not.toBe(encryptName(key, RING, 'a.txt'));
  });

  it('normalizes names to NFC, so the same name typed anywhere matches', () => {
    const key = randomBytes(32);
    const composed = 'Résumé.docx';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    expect(encryptName(key, RING, decomposed)).toBe(encryptName(key, RING, composed));
  });

  it('refuses invalid names', () => {
    const key = randomBytes(32);
    for (const bad of ['', '.', '..', 'a/b', 'a\u0000b', 'tab\there', 'x'.repeat(MAX_NAME_LENGTH + 1)]) {
      expectThrowsCode(() => encryptName(key, RING, bad), 'invalid_format');
    }
    expectThrowsCode(() => encryptName(randomBytes(16), RING, 'a'), 'invalid_format');
  });

  it('rejects any altered byte, another Ring and another key', () => {
    const key = randomBytes(32);
    const encrypted = encryptName(key, RING, 'budget.xlsx');
    const bytes = fromBase64Url(encrypted);
    for (let index = 0; index < bytes.length; index++) {
      expectThrowsCode(
        () => decryptName(key, RING, toBase64Url(flipBit(bytes, index, index % 8))),
        'unverifiable',
      );
    }
    expectThrowsCode(() => decryptName(key, RING, toBase64Url(bytes.subarray(1))), 'unverifiable');
    expectThrowsCode(() => decryptName(key, 'ring-2', encrypted), 'unverifiable');
    expectThrowsCode(() => decryptName(randomBytes(32), RING, encrypted), 'unverifiable');
    expectThrowsCode(() => decryptName(key, RING, 'not/base64url'), 'invalid_format');
    expectThrowsCode(() => decryptName(key, RING, 'A'.repeat(2_000)), 'invalid_format');
  });

  it('encrypts "/"-separated paths segment by segment', () => {
    const key = randomBytes(32);
    const path = 'Projets/2026/Été';
    const encrypted = encryptPath(key, RING, path);
    expect(encrypted.split('/')).toHaveLength(3);
    expect(encrypted.split('/')[0]).toBe(encryptName(key, RING, 'Projets'));
    expect(decryptPath(key, RING, encrypted)).toBe(path);
    expect(encryptPath(key, RING, '')).toBe('');
    expect(decryptPath(key, RING, '')).toBe('');
    for (const bad of ['a//b', '/a', 'a/', 'a/../b']) {
      expectThrowsCode(() => encryptPath(key, RING, bad), 'invalid_format');
    }
  });
});
