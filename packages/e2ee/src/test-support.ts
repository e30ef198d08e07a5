// Helpers for this package's tests only (not exported by index.ts).
import { expect } from 'vitest';
import { type Bytes, fromBase64, toBase64 } from './encoding';
import type { E2eeErrorCode } from './errors';

/** A copy of `bytes` with one bit flipped at `index` (negative counts from the end). */
export function flipBit(bytes: Uint8Array, index = 0, bit = 0): Bytes {
  const copy = new Uint8Array(bytes);
  const at = index < 0 ? copy.length + index : index;
  copy[at] = (copy[at] ?? 0) ^ (1 << bit);
  return copy;
}

/** The same base64 field with one bit of its decoded bytes flipped. */
export function flipBase64(text: string, index = 0): string {
  return toBase64(flipBit(fromBase64(text), index));
}

/** Asserts that `promise` rejects with an E2eeError of the given code. */
export async function expectCode(promise: Promise<unknown>, code: E2eeErrorCode): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'E2eeError', code });
}

/** Asserts that `run` throws an E2eeError of the given code. */
export function expectThrowsCode(run: () => unknown, code: E2eeErrorCode): void {
  expect(run).toThrow(expect.objectContaining({ name: 'E2eeError', code }));
}

/** Byte equality for large arrays (vitest's deep equality is slow on megabytes). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
