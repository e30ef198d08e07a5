import { describe, expect, it } from 'vitest';
import {
  assertExactKeys,
  base64ByteLength,
  checkBase64Field,
  concatBytes,
  encodeFields,
  fromBase64,
  fromBase64Url,
  fromHex,
  isWireId,
  randomBytes,
  readBase64Field,
  toBase64,
  toBase64Url,
  toHex,
  u32be,
  utf8Decode,
  utf8Encode,
} from './encoding';
import { expectThrowsCode, sameBytes } from './test-support';

describe('encoding', () => {
  it('base64 and base64url round-trip every length and match RFC 4648 examples', () => {
    expect(toBase64(utf8Encode('foobar'))).toBe('Zm9vYmFy');
    expect(toBase64(utf8Encode('fo'))).toBe('Zm8=');
    expect(toBase64Url(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
    for (let length = 0; length < 70; length++) {
      const bytes = randomBytes(length);
      expect(fromBase64(toBase64(bytes))).toEqual(bytes);
      const url = toBase64Url(bytes);
      expect(url).not.toMatch(/[/+=]/);
      expect(fromBase64Url(url)).toEqual(bytes);
    }
  });

  it('large inputs encode in slices without overflowing the call stack', () => {
    const bytes = randomBytes(300_000);
    expect(bytes.subarray(-1000).some((byte) => byte !== 0)).toBe(true);
    expect(sameBytes(fromBase64(toBase64(bytes)), bytes)).toBe(true);
  });

  it('refuses non-canonical or malformed base64, base64url and hex', () => {
    for (const bad of ['Zm8', 'Zm9=', 'Zm8=\n', ' Zm8=', 'Z===', 'Zm8_', '====']) {
      expectThrowsCode(() => fromBase64(bad), 'invalid_format');
    }
    for (const bad of ['Zm8=', 'Zm9', 'a', 'Zm+v'])
      expectThrowsCode(() => fromBase64Url(bad), 'invalid_format');
    for (const bad of ['0', 'AB', 'zz', '0g']) expectThrowsCode(() => fromHex(bad), 'invalid_format');
    expect(toHex(fromHex('00ff10ab'))).toBe('00ff10ab');
  });

  it('accepts exactly the base64 texts that re-encode to themselves (every last character, both paddings)', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    for (const c of alphabet) {
      for (const text of [`AA${c}=`, `A${c}==`, `AAA${c}`]) {
        let reencodes: boolean;
        try {
          const binary = atob(text);
          reencodes = btoa(binary) === text;
        } catch {
          reencodes = false;
        }
        if (reencodes) expect(toBase64(fromBase64(text))).toBe(text);
        else expectThrowsCode(() => fromBase64(text), 'invalid_format');
      }
    }
  });

  it('base64ByteLength gives the decoded size of every length and refuses what fromBase64 refuses', () => {
    for (let length = 0; length < 70; length++)
      expect(base64ByteLength(toBase64(randomBytes(length)))).toBe(length);
    for (const bad of ['Zm8', 'Zm9=', 'Zm8=\n', ' Zm8=', 'Z===', 'Zm8_', '====', 'AB=='])
      expectThrowsCode(() => base64ByteLength(bad), 'invalid_format');
  });

  it('checkBase64Field accepts and refuses exactly what readBase64Field does, without decoding', () => {
    const cases: [unknown, number | { min: number; max: number }][] = [
      [toBase64(randomBytes(12)), 12],
      [toBase64(randomBytes(11)), 12],
      [toBase64(randomBytes(13)), 12],
      [toBase64(randomBytes(20)), { min: 16, max: 64 }],
      [toBase64(randomBytes(15)), { min: 16, max: 64 }],
      [toBase64(randomBytes(65)), { min: 16, max: 64 }],
      ['Zm9=', 2],
      ['A'.repeat(400), 12],
      [12, 12],
      [undefined, 12],
    ];
    for (const [value, size] of cases) {
      let read: unknown;
      try {
        read = readBase64Field(value, 'f', size);
      } catch (error) {
        read = error;
      }
      if (read instanceof Uint8Array) expect(() => checkBase64Field(value, 'f', size)).not.toThrow();
      else expectThrowsCode(() => checkBase64Field(value, 'f', size), 'invalid_format');
    }
  });

  it('decodes UTF-8 strictly', () => {
    expect(utf8Decode(utf8Encode('Élodie 🔐'))).toBe('Élodie 🔐');
    expectThrowsCode(() => utf8Decode(new Uint8Array([0xc3])), 'invalid_format');
    expectThrowsCode(() => utf8Decode(new Uint8Array([0xff])), 'invalid_format');
  });

  it('encodes fields as each one\'s 4-byte length and UTF-8 bytes, in a buffer of exactly that size', () => {
    const reference = (...fields: (string | Uint8Array)[]) =>
      concatBytes(
        ...fields.flatMap((field) => {
          const bytes = typeof field === 'string' ? new TextEncoder().encode(field) : field;
          return [u32be(bytes.length), bytes];
        }),
      );
    const samples: (string | Uint8Array)[][] = [
      [],
      [''],
      ['ascii only', 'securering/sig'],
      ['Propriétaire', 'naïve — « guillemets »', '日本語'],
      ['emoji 🔐 and a pair 👩‍👩‍👧', '\u{10FFFF}'],
      ['lone \uD800 high', 'lone \uDC00 low', '\uDBFF'],
      [new Uint8Array([]), new Uint8Array([0, 255, 7]), 'x'.repeat(70_000)],
      ['mixed', new Uint8Array(300).fill(9), 'é'.repeat(1000), ''],
    ];
    for (const fields of samples) {
      const encoded = encodeFields(...fields);
      expect(encoded).toEqual(reference(...fields));
      expect(encoded.byteOffset).toBe(0);
      expect(encoded.buffer.byteLength).toBe(encoded.length);
    }
  });

  it('encodes fields without ambiguity', () => {
    expect(encodeFields('ab', 'c')).not.toEqual(encodeFields('a', 'bc'));
    expect(encodeFields('a', '')).not.toEqual(encodeFields('a'));
    expect(encodeFields('é')).toEqual(new Uint8Array([0, 0, 0, 2, 0xc3, 0xa9]));
    expect(concatBytes(u32be(0x01020304), new Uint8Array([5]))).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
    expectThrowsCode(() => u32be(2 ** 32), 'invalid_format');
    expectThrowsCode(() => u32be(-1), 'invalid_format');
  });

  it('reads sized base64 fields and checks wire shapes', () => {
    expect(readBase64Field(toBase64(new Uint8Array(12)), 'iv', 12)).toHaveLength(12);
    expectThrowsCode(() => readBase64Field(toBase64(new Uint8Array(11)), 'iv', 12), 'invalid_format');
    expectThrowsCode(
      () => readBase64Field(toBase64(new Uint8Array(20)), 'x', { min: 1, max: 16 }),
      'invalid_format',
    );
    expectThrowsCode(() => readBase64Field(42, 'iv', 12), 'invalid_format');
    expect(isWireId('room:general')).toBe(true);
    for (const bad of ['', 'a b', 'x'.repeat(129), 'é', 7]) expect(isWireId(bad)).toBe(false);
    expect(() => assertExactKeys({ a: 1, b: 2 }, ['b', 'a'], 'x')).not.toThrow();
    for (const bad of [{ a: 1 }, { a: 1, b: 2, c: 3 }, null, [1, 2], 'ab']) {
      expectThrowsCode(() => assertExactKeys(bad, ['a', 'b'], 'x'), 'invalid_format');
    }
  });
});
