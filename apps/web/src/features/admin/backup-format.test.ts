import { describe, expect, it } from 'vitest';
import { formatBackupSize } from './backup-format';

const nbsp = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('formatBackupSize', () => {
  it('shows bytes in French units, base 1024, with a decimal comma', () => {
    expect(formatBackupSize(0)).toBe('0 o');
    expect(formatBackupSize(512)).toBe('512 o');
    expect(formatBackupSize(1024)).toBe('1 Ko');
    expect(formatBackupSize(1536)).toBe('1,5 Ko');
    expect(formatBackupSize(5 * 1024 ** 2 + 300 * 1024)).toBe('5,3 Mo');
    expect(formatBackupSize(2 * 1024 ** 3)).toBe('2 Go');
    expect(nbsp(formatBackupSize(1500 * 1024 ** 4))).toBe('1 500 To');
    expect(formatBackupSize(-1)).toBe('—');
  });
});
