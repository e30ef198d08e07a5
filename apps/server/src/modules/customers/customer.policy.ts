import type { TCustomerProfile } from '@securering/contract';
import type { CustomerRow } from './customer.repository';

/** What a customer may see of its own account: never the password hash. */
export function toCustomerProfile(row: CustomerRow): TCustomerProfile {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    company: row.company,
    phone: row.phone,
    country: row.country,
    address_line1: row.address_line1,
    address_line2: row.address_line2,
    city: row.city,
    postal_code: row.postal_code,
    email_verified: row.email_verified === 1,
    is_active: row.is_active === 1,
    status: row.status,
    created_at: row.created_at,
  };
}
