import { describe, expect, it } from 'vitest';
import { formatFileSize, formatGo, formatStorage } from './bytes';

describe('byte formatting (spec 2 §9: base 1024)', () => {
  it('shows storage in Go with 2 decimals, or a dash', () => {
    expect(formatGo(5 * 1024 ** 3)).toBe('5,00 Go');
    expect(formatGo(1536 * 1024 ** 2)).toBe('1,50 Go');
    expect(formatGo(0)).toBe('0,00 Go');
    expect(formatGo(1234 * 1024 ** 3)).toBe('1\u202f234,00 Go');
    expect(formatGo(Number.NaN)).toBe('—');
    expect(formatGo(Number.POSITIVE_INFINITY)).toBe('—');
  });

  it('shows file sizes in Mo above 1 MiB, else in Ko', () => {
    expect(formatFileSize(1024)).toBe('1,0 Ko');
    expect(formatFileSize(1536)).toBe('1,5 Ko');
    expect(formatFileSize(1024 * 1024)).toBe('1\u202f024,0 Ko');
    expect(formatFileSize(1024 * 1024 + 1)).toBe('1,00 Mo');
    expect(formatFileSize(12 * 1024 * 1024)).toBe('12,00 Mo');
    expect(formatFileSize(2.5 * 1024 ** 3)).toBe('2\u202f560,00 Mo');
    expect(formatFileSize(Number.NaN)).toBe('—');
    expect(formatFileSize(-1)).toBe('—');
  });

  it('shows sizes under 1 Ko in octets (issue 28)', () => {
    expect(formatFileSize(26)).toBe('26\u00a0octets');
    expect(formatFileSize(1)).toBe('1\u00a0octet');
    expect(formatFileSize(0)).toBe('0\u00a0octet');
    expect(formatFileSize(1023)).toBe('1023\u00a0octets');
  });

  it('shows storage in Mo under 1 Go, in Go from there (issue 28)', () => {
    expect(formatStorage(26.3 * 1024 ** 2)).toBe('26,3 Mo');
    expect(formatStorage(0)).toBe('0,0 Mo');
    expect(formatStorage(1023 * 1024 ** 2)).toBe('1\u202f023,0 Mo');
    expect(formatStorage(1024 ** 3)).toBe('1,00 Go');
    expect(formatStorage(5 * 1024 ** 3)).toBe('5,00 Go');
    expect(formatStorage(Number.NaN)).toBe('—');
  });
});
