import { describe, expect, it } from 'vitest';
import { ZContactRequest } from '../contact/contact';
import { ZRegisterRequest, ZResetPasswordRequest } from './auth-calls';
import {
  ACCOUNT_MESSAGES,
  CONTACT_MESSAGES,
  passwordError,
  validateAccountStep,
  validateContact,
} from './validation';

const account = {
  email: 'lea@example.com',
  first_name: 'Léa',
  last_name: 'Martin',
  password: 'Secret123',
  confirm_password: 'Secret123',
};

describe('register rules (spec 1 §5)', () => {
  it('checks the password rules in order', () => {
    expect(passwordError('')).toBe('Mot de passe requis');
    expect(passwordError('Abc1')).toBe('Mot de passe trop court (8 min)');
    expect(passwordError('abcdefg1')).toBe('Mot de passe: 1 majuscule requise');
    expect(passwordError('Abcdefgh')).toBe('Mot de passe: 1 chiffre requis');
    expect(passwordError('Abcdefg1')).toBeUndefined();
  });

  it('gives one message per field of step 1', () => {
    expect(validateAccountStep(account)).toEqual({});
    expect(
      validateAccountStep({ email: '', first_name: ' ', last_name: '', password: '', confirm_password: '' }),
    ).toEqual({
      email: 'Email requis',
      first_name: 'Prénom requis',
      last_name: 'Nom requis',
      password: 'Mot de passe requis',
    });
    expect(validateAccountStep({ ...account, email: 'pas-un-email' }).email).toBe('Email invalide');
    expect(validateAccountStep({ ...account, confirm_password: 'Secret124' }).confirm_password).toBe(
      'Les mots de passe ne correspondent pas',
    );
  });

  it('makes the server schema refuse with the same messages and normalise the email', () => {
    const ok = { ...account, email: '  Lea@Example.COM ', accept_terms: true, accept_privacy: '1' };
    const parsed = ZRegisterRequest.safeParse(ok);
    expect(parsed.success && parsed.data.email).toBe('lea@example.com');
    const noAcceptance = ZRegisterRequest.safeParse({
      ...account,
      accept_terms: true,
      accept_privacy: false,
    });
    expect(noAcceptance.success).toBe(false);
    expect(noAcceptance.error?.issues[0]?.message).toBe(ACCOUNT_MESSAGES.acceptanceRequired);
    const badPassword = ZRegisterRequest.safeParse({
      ...account,
      password: 'short',
      confirm_password: 'short',
      accept_terms: 1,
      accept_privacy: 1,
    });
    expect(badPassword.error?.issues[0]?.message).toBe('Mot de passe trop court (8 min)');
  });

  it('requires a token and a valid password to reset', () => {
    expect(ZResetPasswordRequest.safeParse({ password: 'Secret123' }).error?.issues[0]?.message).toBe(
      'Lien invalide',
    );
    expect(
      ZResetPasswordRequest.safeParse({ token: 't', password: 'secret123' }).error?.issues[0]?.message,
    ).toBe('Mot de passe: 1 majuscule requise');
  });
});

describe('contact rules (spec 1 §5)', () => {
  it('requires name, a valid email, a subject and 10 characters of message', () => {
    expect(validateContact({ name: '', email: 'x', subject: '', message: 'court' })).toEqual({
      name: CONTACT_MESSAGES.nameRequired,
      email: 'Email invalide',
      subject: 'Le sujet est requis',
      message: 'Le message doit contenir au moins 10 caractères',
    });
    expect(validateContact({ name: 'A', email: 'a@b.fr', subject: 'S', message: '0123456789' })).toEqual({});
    expect(
      ZContactRequest.safeParse({ name: 'A', email: 'a@b.fr', subject: 'S', message: '   court   ' }).error
        ?.issues[0]?.message,
    ).toBe('Le message doit contenir au moins 10 caractères');
  });
});
