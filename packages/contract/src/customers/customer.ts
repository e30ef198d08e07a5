import { z } from 'zod';

/** The customer as the customer sees itself. Never carries the password hash. */
export const ZCustomerProfile = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  company: z.string(),
  phone: z.string(),
  country: z.string(),
  address_line1: z.string(),
  address_line2: z.string(),
  city: z.string(),
  postal_code: z.string(),
  email_verified: z.boolean(),
  is_active: z.boolean(),
  status: z.enum(['active', 'suspended', 'cancelled']),
  created_at: z.string(),
});
export type TCustomerProfile = z.infer<typeof ZCustomerProfile>;
