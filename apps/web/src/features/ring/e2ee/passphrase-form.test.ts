import { describe, expect, it } from 'vitest';
import {
  forgetAccountPasswords,
  isAccountPassword,
  rememberAccountPassword,
} from '@/lib/auth/account-password';
import {
  PASSPHRASE_REQUIRED,
  SAME_AS_ACCOUNT_PASSWORD,
  strengthProblem,
  validatePassphraseForm,
} from './passphrase-form';
import { estimatePassphraseStrength } from './passphrase-strength';

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

describe('passphrase strength and account password (issue 27, M1)', () => {
  it('refuses guessable passphrases with French advice, and accepts long unexpected ones', async () => {
    for (const weak of ['aaaaaaaaaaaa', 'azertyuiopqs', 'motdepasse123', 'bonjour bonjour']) {
      const problem = strengthProblem(await estimatePassphraseStrength(weak), false);
      expect(problem, weak).toMatch(/^Phrase secrète trop facile à deviner/);
    }
    const repeated = strengthProblem(await estimatePassphraseStrength('aaaaaaaaaaaa'), false);
    expect(repeated).toContain('Les caractères répétés');
    for (const strong of ['cheval agrafe batterie correcte', 'le phare veille sur la baie']) {
      expect(strengthProblem(await estimatePassphraseStrength(strong), false), strong).toBeUndefined();
    }
  }, 60_000);

  it('counts the member’s own names as known words', async () => {
    // A username no dictionary knows: strong alone, guessable for someone who knows the member.
    const phrase = 'zorblattquixwen2026';
    const alone = await estimatePassphraseStrength(phrase);
    const known = await estimatePassphraseStrength(phrase, ['zorblattquixwen', 'Le Ring de Zorblatt']);
    expect(strengthProblem(alone, false)).toBeUndefined();
    expect(strengthProblem(known, false)).toMatch(/^Phrase secrète trop facile à deviner/);
  }, 60_000);

  it('refuses the account password this page saw at sign-in, even if strong', async () => {
    const password = 'le phare veille sur la baie';
    const strong = await estimatePassphraseStrength(password);
    expect(strengthProblem(strong, await isAccountPassword(password))).toBeUndefined();
    await rememberAccountPassword(password);
    expect(await isAccountPassword(password)).toBe(true);
    expect(await isAccountPassword(password.normalize('NFD'))).toBe(true);
    expect(await isAccountPassword('le phare veille sur la baie!')).toBe(false);
    expect(strengthProblem(strong, await isAccountPassword(password))).toBe(SAME_AS_ACCOUNT_PASSWORD);
    forgetAccountPasswords();
    expect(await isAccountPassword(password)).toBe(false);
  }, 60_000);
});
