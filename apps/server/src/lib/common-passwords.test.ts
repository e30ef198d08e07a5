import { ACCOUNT_MESSAGES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { AppError } from './app-error';
import { assertNotCommonPassword, isCommonPassword } from './common-passwords';
import list from './common-passwords.json';

describe('common passwords (issue 9, item 17)', () => {
  it('ships several thousand entries, all long enough to pass the length rule', () => {
    expect(list.length).toBeGreaterThan(1_000);
    expect(list.every((p) => p.length >= 8)).toBe(true);
  });

  it('recognises well-known international and French passwords whatever their case', () => {
    for (const password of [
      '12345678',
      'password',
      'Password1',
      'PASSWORD123',
      'Azerty123',
      'azertyuiop',
      'motdepasse',
      'Motdepasse1',
      'Soleil123',
      'Marseille13',
      'Jetaime123',
      'Qwerty123!',
      ' Azerty123 ',
    ])
      expect(isCommonPassword(password), password).toBe(true);
    for (const password of ['Tr0mbone-Cactus-88', 'Client-Password-1', 'Root-Password-1'])
      expect(isCommonPassword(password), password).toBe(false);
  });

  it('refuses with the French message, and lets other passwords through', () => {
    expect(() => assertNotCommonPassword('Azerty123')).toThrow(AppError);
    expect(() => assertNotCommonPassword('Azerty123')).toThrow(ACCOUNT_MESSAGES.passwordCommon);
    expect(() => assertNotCommonPassword('Tr0mbone-Cactus-88')).not.toThrow();
    expect(() => assertNotCommonPassword(undefined)).not.toThrow();
  });
});
