/** Business constants from the specification, shared by server, web and tests. */

export const ENCRYPTION_LEVELS = ['basic', 'standard', 'high', 'military'] as const;
export type EncryptionLevel = (typeof ENCRYPTION_LEVELS)[number];

export const PROTECTION_LEVELS = ['disabled', 'basic', 'standard', 'maximum'] as const;
export type ProtectionLevel = (typeof PROTECTION_LEVELS)[number];

export const SUPPORT_LEVELS = ['community', 'email', 'priority', 'dedicated'] as const;
export type SupportLevel = (typeof SUPPORT_LEVELS)[number];

export const BILLING_CYCLES = ['monthly', 'yearly'] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];

export const PAYMENT_PROVIDERS = ['stripe', 'paypal', 'nowpayments', 'test', 'manual'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

export const CRYPTO_CURRENCIES = ['BTC', 'ETH', 'USDT', 'USDC'] as const;
export type CryptoCurrency = (typeof CRYPTO_CURRENCIES)[number];

export const RING_ROLES = ['owner', 'admin', 'member'] as const;
export type RingRole = (typeof RING_ROLES)[number];

export const RING_MEMBER_STATUSES = ['invited', 'active', 'inactive'] as const;
export type RingMemberStatus = (typeof RING_MEMBER_STATUSES)[number];

export const ADMIN_ROLES = ['admin', 'super_admin'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/** Back-office modules and the tab each one unlocks (spec 3 §2.2). */
export const ADMIN_MODULES = [
  { name: 'client_users', label: 'Clients' },
  { name: 'email_management', label: 'Emails' },
  { name: 'plans', label: 'Plans' },
  { name: 'payment_settings', label: 'Paiements' },
  { name: 'transactions', label: 'Transactions' },
  { name: 'backup', label: 'Sauvegarde' },
  { name: 'site_settings', label: 'Site et Rings' },
  { name: 'admin_management', label: 'Admins' },
  { name: 'system_logs', label: 'Logs' },
] as const;
export type AdminModule = (typeof ADMIN_MODULES)[number]['name'];

export const PERMISSION_TYPES = [
  { type: 'view', label: 'Consulter' },
  { type: 'create', label: 'Créer' },
  { type: 'edit', label: 'Modifier' },
  { type: 'delete', label: 'Supprimer' },
] as const;
export type PermissionType = (typeof PERMISSION_TYPES)[number]['type'];
export const PERMISSION_TYPE_NAMES = PERMISSION_TYPES.map((p) => p.type) as PermissionType[];

export const LOG_LEVELS = ['info', 'warning', 'error', 'critical'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_CATEGORIES = [
  'auth',
  'payment',
  'email',
  'system',
  'api',
  'admin',
  'client_dashboard',
  'realtime',
  'messages',
  'security',
  /** Reports posted by browsers without a session (POST /api/utils/log.php): never trusted. */
  'client',
] as const;
export type LogCategory = (typeof LOG_CATEGORIES)[number];

/** Session lifetimes in days, per audience. */
export const SESSION_TTL_DAYS = { customer: 7, ring: 7, admin: 30 } as const;

/** Cookie names and lifetimes used by the web app (spec 1 §9, spec 2 §9, spec 3 §9). */
export const COOKIES = {
  consent: 'cookie_consent',
  preferences: 'cookie_preferences',
  customerToken: 'customer_token',
  customerData: 'customer_data',
  ringToken: 'secureChat_token',
  ringUser: 'secureChat_user',
  ringRing: 'secureChat_ring',
  adminToken: 'admin_token',
  adminUser: 'admin_user',
  /**
   * Anti-forgery tokens (issue 27, L5): readable by the page, set by the server next to each
   * HttpOnly session cookie above, echoed in the CSRF_HEADER of cookie-authenticated writes.
   */
  customerCsrf: 'customer_csrf',
  ringCsrf: 'secureChat_csrf',
  adminCsrf: 'admin_csrf',
} as const;

/** The header a cookie-authenticated write repeats its audience's CSRF cookie in (issue 27, L5). */
export const CSRF_HEADER = 'X-CSRF-Token';

export const CONSENT_DAYS = 365;
export const BACK_TO_TOP_THRESHOLD_PX = 300;

/** Shown in place of a stored secret; sending it back on save keeps the stored value. */
export const SECRET_MARKER = '********';
