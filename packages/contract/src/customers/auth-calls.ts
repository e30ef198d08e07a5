import { z } from 'zod';
import { successOf, zBoundedString } from '../common';
import { ZCustomerProfile } from './customer';
import {
  ACCOUNT_MESSAGES,
  EMAIL_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  acceptanceError,
  emailError,
  normaliseEmail,
  passwordError,
  validateAccountStep,
} from './validation';

const optionalText = (max: number) =>
  zBoundedString(max, `${max} caractères maximum`)
    .nullish()
    .transform((s) => (s ?? '').trim());
const flag = z
  .union([z.boolean(), z.number(), z.string()])
  .transform((v) => v === true || v === 1 || v === '1' || v === 'true' || v === 'on');

/** POST /api/auth/register.php — every rule of spec 1 §5, in the order the wizard checks them. */
export const ZRegisterRequest = z
  .object({
    email: zBoundedString(EMAIL_MAX_LENGTH, ACCOUNT_MESSAGES.emailInvalid).default(''),
    first_name: optionalText(100),
    last_name: optionalText(100),
    password: zBoundedString(PASSWORD_MAX_LENGTH, 'Mot de passe trop long (200 max)').default(''),
    confirm_password: zBoundedString(PASSWORD_MAX_LENGTH).default(''),
    company: optionalText(200),
    phone: optionalText(50),
    country: optionalText(100),
    address_line1: optionalText(200),
    address_line2: optionalText(200),
    city: optionalText(100),
    postal_code: optionalText(20),
    accept_terms: flag.default(false),
    accept_privacy: flag.default(false),
  })
  .superRefine((value, ctx) => {
    const errors = validateAccountStep(value);
    const first =
      errors.email ?? errors.first_name ?? errors.last_name ?? errors.password ?? errors.confirm_password;
    if (first) ctx.addIssue({ code: 'custom', message: first });
    const acceptance = acceptanceError(value.accept_terms, value.accept_privacy);
    if (!first && acceptance) ctx.addIssue({ code: 'custom', message: acceptance });
  })
  .transform((value) => ({ ...value, email: normaliseEmail(value.email) }));
export type TRegisterRequest = z.input<typeof ZRegisterRequest>;

export const ZRegisterResponse = successOf({ message: z.string() });
export type TRegisterResponse = z.infer<typeof ZRegisterResponse>;

/** GET /api/auth/verify-email.php?token= */
export const ZVerifyEmailQuery = z.object({
  token: zBoundedString(200, ACCOUNT_MESSAGES.verificationLinkInvalid)
    .default('')
    .pipe(
      z
        .string()
        .trim()
        .min(1, ACCOUNT_MESSAGES.verificationTokenMissing)
        .max(200, ACCOUNT_MESSAGES.verificationLinkInvalid),
    ),
});
export const ZVerifyEmailResponse = successOf({
  message: z.string(),
  customer: z.object({ first_name: z.string(), email: z.string() }),
});
export type TVerifyEmailResponse = z.infer<typeof ZVerifyEmailResponse>;

/** POST /api/auth/customer-login.php — password, or auto_login with the verification token. */
export const ZCustomerLoginRequest = z
  .object({
    email: zBoundedString(EMAIL_MAX_LENGTH).default(''),
    password: zBoundedString(PASSWORD_MAX_LENGTH).optional(),
    auto_login: flag.optional(),
    verification_token: zBoundedString(200).optional(),
  })
  .superRefine((value, ctx) => {
    const auto = value.auto_login === true;
    if (!value.email.trim() || (auto ? !value.verification_token : !value.password)) {
      ctx.addIssue({ code: 'custom', message: ACCOUNT_MESSAGES.fillAllFields });
    }
  })
  .transform((value) => ({ ...value, email: normaliseEmail(value.email) }));
export type TCustomerLoginRequest = z.input<typeof ZCustomerLoginRequest>;

export const ZCustomerLoginResponse = successOf({ token: z.string(), customer: ZCustomerProfile });
export type TCustomerLoginResponse = z.infer<typeof ZCustomerLoginResponse>;

/** GET /api/auth/customer-status.php (bearer) */
export const ZCustomerStatusResponse = successOf({ customer: ZCustomerProfile });
export type TCustomerStatusResponse = z.infer<typeof ZCustomerStatusResponse>;

const ZEmailOnly = z
  .object({ email: zBoundedString(EMAIL_MAX_LENGTH, ACCOUNT_MESSAGES.emailInvalid).default('') })
  .superRefine((value, ctx) => {
    const error = emailError(value.email);
    if (error)
      ctx.addIssue({
        code: 'custom',
        message: error === ACCOUNT_MESSAGES.emailRequired ? ACCOUNT_MESSAGES.enterEmail : error,
      });
  });

/** POST /api/auth/resend-verification.php — same answer for known and unknown addresses. */
export const ZResendVerificationRequest = ZEmailOnly.transform((v) => ({ email: normaliseEmail(v.email) }));
/** POST /api/auth/forgot-password.php — same answer for known and unknown addresses. */
export const ZForgotPasswordRequest = ZResendVerificationRequest;
export const ZNeutralResponse = successOf({ message: z.string() });
export type TNeutralResponse = z.infer<typeof ZNeutralResponse>;

/** POST /api/auth/reset-password.php */
export const ZResetPasswordRequest = z
  .object({
    token: zBoundedString(200, ACCOUNT_MESSAGES.resetLinkInvalid).trim().default(''),
    password: zBoundedString(PASSWORD_MAX_LENGTH).default(''),
  })
  .superRefine((value, ctx) => {
    if (!value.token) ctx.addIssue({ code: 'custom', message: ACCOUNT_MESSAGES.invalidLink });
    else {
      const error = passwordError(value.password);
      if (error) ctx.addIssue({ code: 'custom', message: error });
    }
  });
export const ZResetPasswordResponse = successOf({ message: z.string() });
