import { describe, expect, it } from 'vitest';
import { ZCreateAdminCustomerRequest } from '../admin/customers';
import { ZCreateAdminRequest } from '../admin/permissions';
import { ZContactRequest } from '../contact/contact';
import { parseDiskSpace } from '../plans/plan-editor';
import { ZAcceptInviteRequest } from '../rings/ring-calls';
import { isSpaRoute } from '../routes';
import { checkSettingValue } from '../settings/validate';
import {
  ZCustomerLoginRequest,
  ZForgotPasswordRequest,
  ZRegisterRequest,
  ZResetPasswordRequest,
} from './auth-calls';
import {
  ACCOUNT_MESSAGES,
  CONTACT_MESSAGES,
  emailError,
  isEmailAddress,
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
    expect(passwordError('abcdefg1')).toBe('Mot de passe\u202f: 1 majuscule requise');
    expect(passwordError('Abcdefgh')).toBe('Mot de passe\u202f: 1 chiffre requis');
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
    ).toBe('Mot de passe\u202f: 1 majuscule requise');
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

describe('hostile inputs stay cheap (issue 9, item 1)', () => {
  // The pattern every email field used before: it backtracked quadratically.
  const OLD_EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
  const crafted = (n: number) => `a@${'a.'.repeat(n)}@`;
  const within = (ms: number, run: () => void) => {
    const started = Date.now();
    run();
    expect(Date.now() - started).toBeLessThan(ms);
  };

  it('accepts exactly what the old email pattern accepted, for addresses up to 254 characters', () => {
    const samples = [
      'a@b.c',
      'lea.martin@example.fr',
      'a@b..c',
      'a@.b.c',
      'a@b.',
      'a@.b',
      'a@b',
      '@b.c',
      'a@@b.c',
      'a@b@c.d',
      'a b@c.d',
      'a@b.c\t',
      'a@b\u00a0.c',
      'é@ü.ß',
      'a@b.c.',
      'x@y.z.w',
      '',
      '.@..',
      'a@...',
    ];
    for (const sample of samples) expect(isEmailAddress(sample), sample).toBe(OLD_EMAIL_PATTERN.test(sample));
    // Every short string over a small alphabet, so the two rules cannot drift apart.
    const alphabet = ['a', '@', '.', ' '];
    const all = (length: number): string[] =>
      length === 0 ? [''] : all(length - 1).flatMap((prefix) => alphabet.map((c) => prefix + c));
    for (let length = 1; length <= 7; length++)
      for (const sample of all(length))
        expect(isEmailAddress(sample), sample).toBe(OLD_EMAIL_PATTERN.test(sample));
  });

  it('refuses over-long addresses without looking at them', () => {
    expect(isEmailAddress(`${'a'.repeat(250)}@b.fr`)).toBe(false);
    expect(isEmailAddress(`${'a'.repeat(248)}@b.fr`)).toBe(true);
    within(500, () => expect(isEmailAddress(crafted(500_000))).toBe(false));
    within(500, () => expect(emailError(crafted(500_000))).toBe(ACCOUNT_MESSAGES.emailInvalid));
  });

  it('validates 1 MiB crafted bodies in milliseconds, with the usual French message', () => {
    const email = crafted(500_000);
    within(1_000, () => {
      expect(ZForgotPasswordRequest.safeParse({ email }).error?.issues[0]?.message).toBe('Email invalide');
      expect(ZRegisterRequest.safeParse({ ...account, email }).error?.issues[0]?.message).toBe(
        'Email invalide',
      );
      expect(
        ZContactRequest.safeParse({ name: 'A', email, subject: 'S', message: '0123456789' }).success,
      ).toBe(false);
      expect(ZCustomerLoginRequest.safeParse({ email, password: 'x' }).success).toBe(false);
      expect(
        ZAcceptInviteRequest.safeParse({ invite_code: 'A', username: 'u', email, password: 'x' }).success,
      ).toBe(false);
      expect(ZCreateAdminCustomerRequest.safeParse({ first_name: 'A', last_name: 'B', email }).success).toBe(
        false,
      );
      expect(
        ZCreateAdminRequest.safeParse({ username: 'abc', email, role: 'admin', password: 'x' }).success,
      ).toBe(false);
      expect(checkSettingValue({ type: 'email' }, email, 'Email').ok).toBe(false);
    });
  });

  it('stops at the length check: no refinement runs on an over-long field', () => {
    const huge = 'x'.repeat(300);
    const issues = ZRegisterRequest.safeParse({ ...account, email: huge }).error?.issues ?? [];
    expect(issues.map((i) => i.message)).toEqual(['Email invalide']);
  });

  it('trims trailing slashes of a long path in linear time', () => {
    within(500, () => expect(isSpaRoute(`/${'/'.repeat(200_000)}x`)).toBe(false));
    expect(isSpaRoute('/contact//')).toBe(true);
  });

  it('reads disk sizes without backtracking on long blank runs', () => {
    within(500, () => expect(parseDiskSpace(`1${' '.repeat(200_000)}x!`)).toBeNull());
    expect(parseDiskSpace('  1,5 To ')).toBe(1.5 * 1024 ** 4);
  });
});
