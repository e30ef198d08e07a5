import { describe, expect, it } from 'vitest';
import { storageSummary, usagePercent } from './storage-panel';

describe('storage display (spec 2 §2)', () => {
  it('says what is used out of what is allocated, in Go, or dashes while unknown', () => {
    expect(storageSummary({ allocated: 5 * 1024 ** 3, used: 1536 * 1024 ** 2, remaining: 0 })).toBe(
      '1,50 Go utilisés sur 5,00 Go',
    );
    expect(storageSummary({ allocated: Number.NaN, used: Number.NaN, remaining: Number.NaN })).toBe(
      '— utilisés sur —',
    );
    expect(storageSummary({ allocated: 5 * 1024 ** 3, used: 26.3 * 1024 ** 2, remaining: 0 })).toBe(
      '26,3 Mo utilisés sur 5,00 Go',
    );
  });

  it('caps the progress at 100 %', () => {
    expect(usagePercent(50, 100)).toBe(50);
    expect(usagePercent(300, 100)).toBe(100);
    expect(usagePercent(1, 0)).toBe(0);
    expect(usagePercent(Number.NaN, 100)).toBe(0);
  });
});
