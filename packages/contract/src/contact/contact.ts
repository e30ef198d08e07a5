import { z } from 'zod';
import { successOf, zBoundedString } from '../common';
import {
  CONTACT_MESSAGES,
  CONTACT_MESSAGE_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  validateContact,
} from '../customers/validation';

/** POST /api/contact.php */
export const ZContactRequest = z
  .object({
    name: zBoundedString(100, '100 caractères maximum').default(''),
    email: zBoundedString(EMAIL_MAX_LENGTH, CONTACT_MESSAGES.emailInvalid).default(''),
    subject: zBoundedString(200, '200 caractères maximum').default(''),
    message: zBoundedString(CONTACT_MESSAGE_MAX_LENGTH, '5000 caractères maximum').default(''),
  })
  .superRefine((value, ctx) => {
    const errors = validateContact(value);
    const first = errors.name ?? errors.email ?? errors.subject ?? errors.message;
    if (first) ctx.addIssue({ code: 'custom', message: first });
  })
  .transform((v) => ({
    name: v.name.trim(),
    email: v.email.trim().toLowerCase(),
    subject: v.subject.trim(),
    message: v.message.trim(),
  }));
export type TContactRequest = z.input<typeof ZContactRequest>;

export const ZContactResponse = successOf({ message: z.string() });
