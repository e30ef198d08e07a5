import { z } from 'zod';
import { successOf, zBoundedString } from '../common';
import { ACCOUNT_MESSAGES, PASSWORD_MAX_LENGTH } from '../customers/validation';
import { ZForgotPasswordRequest } from '../customers/auth-calls';

/**
 * A Ring member's own account (issue 28): what it reads when its access was suspended, and its
 * « Mot de passe oublié » (a link by email, as for customers: hashed single-use token, 1 hour).
 */
export const MEMBER_ACCESS_MESSAGES = {
  /** A deactivated member, live in its open room and at login (only once its password matched). */
  accessSuspended: 'Votre accès à ce Ring a été suspendu par son administrateur',
  forgotNeutral: ACCOUNT_MESSAGES.forgotNeutral,
  resetLinkInvalid: ACCOUNT_MESSAGES.resetLinkInvalid,
  passwordTooShort: 'Mot de passe trop court\u202f: 8 caractères minimum.',
  /** After a member's reset: the password changed, its E2EE keys did not. */
  passwordReset:
    'Votre mot de passe a été réinitialisé. Vos clés de chiffrement ne changent pas\u202f: votre phrase secrète reste la même.',
} as const;

export const MEMBER_ACCESS_API_PATHS = {
  forgotPassword: '/api/rings/forgot-password.php',
  resetPassword: '/api/rings/reset-password.php',
} as const;

/** A member's reset link opens the Ring access page with its token: `/ring-access?reset=<token>`. */
export const RING_RESET_PASSWORD_PARAM = 'reset';

/** POST /api/rings/forgot-password.php — the same answer whether the address is a member's or not. */
export const ZRingForgotPasswordRequest = ZForgotPasswordRequest;
export type TRingForgotPasswordRequest = z.input<typeof ZRingForgotPasswordRequest>;

/** POST /api/rings/reset-password.php — the member's password rule (8 characters, as at invitation). */
export const ZRingResetPasswordRequest = z
  .object({
    token: zBoundedString(200, MEMBER_ACCESS_MESSAGES.resetLinkInvalid).trim().default(''),
    password: zBoundedString(PASSWORD_MAX_LENGTH, 'Mot de passe trop long (200 max)').default(''),
  })
  .superRefine((v, ctx) => {
    if (!v.token) ctx.addIssue({ code: 'custom', message: ACCOUNT_MESSAGES.invalidLink });
    else if (v.password.length < 8)
      ctx.addIssue({ code: 'custom', message: MEMBER_ACCESS_MESSAGES.passwordTooShort });
  });
export type TRingResetPasswordRequest = z.input<typeof ZRingResetPasswordRequest>;
export const ZRingResetPasswordResponse = successOf({ message: z.string() });
