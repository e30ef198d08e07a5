import type { TCustomerProfile } from '@securering/contract';
import { newId } from '../../lib/ids';
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

/** The profile fields a new account is created with, by the customer or by an admin. */
export type NewCustomerProfile = Pick<
  CustomerRow,
  | 'email'
  | 'first_name'
  | 'last_name'
  | 'company'
  | 'phone'
  | 'country'
  | 'address_line1'
  | 'address_line2'
  | 'city'
  | 'postal_code'
>;

/** The row of a new account; `state` says how it starts (verified, active, terms accepted…). */
export function newCustomerRow(
  profile: NewCustomerProfile,
  passwordHash: string,
  now: string,
  state: Pick<
    CustomerRow,
    | 'email_verified'
    | 'email_verified_at'
    | 'is_active'
    | 'status'
    | 'stripe_customer_id'
    | 'paypal_customer_id'
    | 'accepted_terms_at'
    | 'accepted_privacy_at'
  >,
): CustomerRow {
  return {
    id: newId(),
    email: profile.email,
    password_hash: passwordHash,
    first_name: profile.first_name,
    last_name: profile.last_name,
    company: profile.company,
    phone: profile.phone,
    country: profile.country,
    address_line1: profile.address_line1,
    address_line2: profile.address_line2,
    city: profile.city,
    postal_code: profile.postal_code,
    ...state,
    created_at: now,
    updated_at: now,
  };
}
