import { describe, expect, it } from 'vitest';
import { formatGo, usagePercent } from './storage-panel';

describe('storage display (spec 2 §2)', () => {
  it('shows Go with 2 decimals in base 1024, or a dash', () => {
    expect(formatGo(5 * 1024 ** 3)).toBe('5,00 Go');
    expect(formatGo(1536 * 1024 ** 2)).toBe('1,50 Go');
    expect(formatGo(Number.NaN)).toBe('—');
  });

  it('caps the progress at 100 %', () => {
    expect(usagePercent(50, 100)).toBe(50);
    expect(usagePercent(300, 100)).toBe(100);
    expect(usagePercent(1, 0)).toBe(0);
  });
});
