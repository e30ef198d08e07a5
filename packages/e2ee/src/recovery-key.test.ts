import { describe, expect, it } from 'vitest';
import { formatRecoveryKey, generateRecoveryKey, parseRecoveryKey, RECOVERY_KEY_BYTES } from './recovery-key';

describe('recovery key format', () => {
  it('is 160 random bits in eight groups of four base32 characters', () => {
    const key = generateRecoveryKey();
    expect(key).toMatch(/^([0-9A-HJKMNP-TV-Z]{4}-){7}[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(parseRecoveryKey(key)).toHaveLength(RECOVERY_KEY_BYTES);
    expect(RECOVERY_KEY_BYTES * 8).toBeGreaterThanOrEqual(128);
    expect(new Set(Array.from({ length: 50 }, generateRecoveryKey)).size).toBe(50);
  });

  it('reads back what it writes, forgiving case, spaces and look-alike letters', () => {
    const bytes = Uint8Array.from({ length: RECOVERY_KEY_BYTES }, (_, i) => (i * 37 + 11) & 0xff);
    const key = formatRecoveryKey(bytes);
    expect(parseRecoveryKey(key)).toEqual(bytes);
    expect(parseRecoveryKey(` ${key.toLowerCase().replace(/-/g, ' ')} `)).toEqual(bytes);
    expect(parseRecoveryKey(key.replace(/0/g, 'O').replace(/1/g, 'l'))).toEqual(bytes);
    expect(formatRecoveryKey(new Uint8Array(RECOVERY_KEY_BYTES))).toBe(
      '0000-0000-0000-0000-0000-0000-0000-0000',
    );
  });

  it('refuses what is not a key', () => {
    expect(parseRecoveryKey('')).toBeUndefined();
    expect(parseRecoveryKey('0000-0000-0000-0000-0000-0000-0000')).toBeUndefined();
    expect(parseRecoveryKey('0000-0000-0000-0000-0000-0000-0000-000U')).toBeUndefined();
    expect(parseRecoveryKey('0000-0000-0000-0000-0000-0000-0000-00000')).toBeUndefined();
  });
});
