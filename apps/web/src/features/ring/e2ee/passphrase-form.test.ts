import { describe, expect, it } from 'vitest';
import { PASSPHRASE_REQUIRED, validatePassphraseForm } from './passphrase-form';

describe('passphrase dialog validation', () => {
  it('asks for at least 12 characters for a new passphrase, on the passphrase field', () => {
    expect(validatePassphraseForm('create', { passphrase: 'court', confirmation: 'court' })).toEqual({
      passphrase: 'La phrase secrète doit contenir au moins 12 caractères',
    });
    expect(validatePassphraseForm('reset', { passphrase: '', confirmation: '' }).passphrase).toMatch(
      /12 caractères/,
    );
  });

  it('counts characters, not UTF-16 units or bytes', () => {
    expect(
      validatePassphraseForm('create', { passphrase: '🔐🔐🔐🔐🔐🔐', confirmation: '🔐🔐🔐🔐🔐🔐' })
        .passphrase,
    ).toBeDefined();
    const twelve = 'éèàùçô€🔐abcd';
    expect(validatePassphraseForm('create', { passphrase: twelve, confirmation: twelve })).toEqual({});
  });

  it('reports a different confirmation on the confirmation field', () => {
    expect(
      validatePassphraseForm('create', {
        passphrase: 'une phrase assez longue',
        confirmation: 'une autre phrase',
      }),
    ).toEqual({ confirmation: 'Les phrases secrètes ne correspondent pas' });
  });

  it('accepts a long matching passphrase', () => {
    const phrase = 'cheval correct pile agrafe';
    expect(validatePassphraseForm('create', { passphrase: phrase, confirmation: phrase })).toEqual({});
  });

  it('only needs a non-empty passphrase to unlock (the record decides if it is right)', () => {
    expect(validatePassphraseForm('unlock', { passphrase: '', confirmation: '' })).toEqual({
      passphrase: PASSPHRASE_REQUIRED,
    });
    expect(validatePassphraseForm('unlock', { passphrase: 'x', confirmation: '' })).toEqual({});
  });
});
