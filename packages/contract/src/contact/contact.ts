import { z } from 'zod';
import { successOf } from '../common';
import { CONTACT_MESSAGES, validateContact } from '../customers/validation';

/** POST /api/contact.php */
export const ZContactRequest = z
  .object({
    name: z.string().max(100, '100 caractères maximum').default(''),
    email: z.string().max(254, CONTACT_MESSAGES.emailInvalid).default(''),
    subject: z.string().max(200, '200 caractères maximum').default(''),
    message: z.string().max(5000, '5000 caractères maximum').default(''),
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
