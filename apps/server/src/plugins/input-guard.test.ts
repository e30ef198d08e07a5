import { describe, expect, it } from 'vitest';
import { containsNul } from './input-guard';

describe('containsNul', () => {
  it('finds a NUL in any string or key, however deep', () => {
    expect(containsNul('a\u0000b')).toBe(true);
    expect(containsNul({ a: [{ b: 'x\u0000' }] })).toBe(true);
    expect(containsNul({ 'k\u0000': 1 })).toBe(true);
    expect(containsNul({ a: 'ok', b: [1, null, true, 'é\n\t'] })).toBe(false);
    expect(containsNul(undefined)).toBe(false);
  });

  it('walks a 100,000-deep value without exhausting the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}"\\u0000"${']'.repeat(100_000)}`);
    expect(containsNul(deep)).toBe(true);
  });
});
