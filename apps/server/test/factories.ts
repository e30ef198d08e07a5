import { randomBytes } from 'node:crypto';
import type { AdminModule, PermissionType } from '@securering/contract';
import type { AppContext } from '../src/app-context';
import type {
  AdminsTable,
  CustomersTable,
  RingMembersTable,
  RingsTable,
  SubscriptionsTable,
} from '../src/db/schema';
import { newId } from '../src/lib/ids';
import { hashPassword } from '../src/lib/passwords';
import { newInviteCode } from '../src/lib/tokens';
import { queuedMail } from './queued-mails';

const unique = () => randomBytes(4).toString('hex');
const nowIso = (ctx: AppContext) => ctx.clock.now().toISOString();

export async function buildAdmin(
  ctx: AppContext,
  overrides: Partial<AdminsTable> & {
    password?: string;
    permissions?: Array<[AdminModule, PermissionType]>;
  } = {},
): Promise<AdminsTable & { password: string }> {
  const { password = 'Admin-Password-1', permissions = [], ...rest } = overrides;
  const now = nowIso(ctx);
  const admin: AdminsTable = {
    id: newId(),
    username: `admin_${unique()}`,
    email: `admin_${unique()}@example.com`,
    password_hash: await hashPassword(password),
    role: 'admin',
    is_active: 1,
    last_login: null,
    created_at: now,
    updated_at: now,
    ...rest,
  };
  await ctx.admins.insert(admin);
  if (permissions.length) {
    await ctx.admins.upsertPermissions(
      permissions.map(([module_name, permission_type]) => ({
        id: newId(),
        admin_id: admin.id,
        module_name,
        permission_type,
        granted: 1,
        updated_at: now,
      })),
    );
  }
  return { ...admin, password };
}

/** An admin session token without going through the login route. */
export async function adminToken(ctx: AppContext, adminId: string): Promise<string> {
  return (await ctx.sessions.issue('admin', adminId)).token;
}

export async function buildCustomer(
  ctx: AppContext,
  overrides: Partial<CustomersTable> & { password?: string } = {},
): Promise<CustomersTable & { password: string }> {
  const { password = 'Client-Password-1', ...rest } = overrides;
  const now = nowIso(ctx);
  const customer: CustomersTable = {
    id: newId(),
    email: `client_${unique()}@example.com`,
    password_hash: await hashPassword(password),
    first_name: 'Camille',
    last_name: 'Durand',
    company: 'Durand SARL',
    phone: '0102030405',
    country: 'FR',
    address_line1: '1 rue de la Paix',
    address_line2: '',
    city: 'Paris',
    postal_code: '75002',
    email_verified: 1,
    email_verified_at: now,
    is_active: 1,
    status: 'active',
    stripe_customer_id: null,
    paypal_customer_id: null,
    accepted_terms_at: now,
    accepted_privacy_at: now,
    created_at: now,
    updated_at: now,
    ...rest,
  };
  await ctx.db.insertInto('customers').values(customer).execute();
  return { ...customer, password };
}

/** The id of a seeded plan, by its slug. */
export async function seededPlanId(ctx: AppContext, slug: string): Promise<string> {
  const plan = await ctx.db
    .selectFrom('plans')
    .select('id')
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();
  return plan.id;
}

/** An active subscription to a seeded plan (professional by default), running for a year. */
export async function buildSubscription(
  ctx: AppContext,
  customerId: string,
  overrides: Partial<SubscriptionsTable> & { planSlug?: string } = {},
): Promise<SubscriptionsTable> {
  const { planSlug = 'professional', ...rest } = overrides;
  const planId = await seededPlanId(ctx, planSlug);
  const now = ctx.clock.now();
  const subscription: SubscriptionsTable = {
    id: newId(),
    customer_id: customerId,
    plan_id: planId,
    status: 'active',
    billing_cycle: 'yearly',
    video_enabled: 0,
    auto_renew: 0,
    starts_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 365 * 86_400_000).toISOString(),
    cancelled_at: null,
    provider: 'manual',
    provider_subscription_id: null,
    failed_payment_count: 0,
    reminder_sent_at: null,
    notes: '',
    created_by_admin_id: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    ...rest,
  };
  await ctx.db.insertInto('subscriptions').values(subscription).execute();
  return subscription;
}

/** A Ring of the customer; gives the customer an active subscription first unless it has one. */
export async function buildRing(
  ctx: AppContext,
  customerId: string,
  overrides: Partial<RingsTable> & { withSubscription?: boolean } = {},
): Promise<RingsTable> {
  const { withSubscription = true, ...ringOverrides } = overrides;
  if (withSubscription) {
    const current = await ctx.db
      .selectFrom('subscriptions')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (!current) await buildSubscription(ctx, customerId);
  }
  const now = nowIso(ctx);
  const ring: RingsTable = {
    id: newId(),
    customer_id: customerId,
    name: `Ring ${unique()}`,
    plan_slug: 'professional',
    encryption_level: 'standard',
    ephemeral_messages: 0,
    auto_destroy_delay: 300,
    allow_voice: 1,
    allow_video: 0,
    voice_admin_only: 0,
    max_file_size_mb: 10,
    screen_protection_level: 'standard',
    screen_devtools_protection: 1,
    screen_visibility_protection: 1,
    screen_experimental_features: 0,
    screen_recording_detection: 0,
    storage_quota_bytes: 5 * 1024 ** 3,
    kdf_salt_b64: randomBytes(16).toString('base64'),
    is_active: 1,
    created_at: now,
    updated_at: now,
    current_epoch: 0,
    epoch_created_at: null,
    epoch_message_count: 0,
    rotation_due: 0,
    share_history: 0,
    key_revision: 0,
    log_head_seq: -1,
    log_head_hash: '',
    log_level: null,
    ...ringOverrides,
  };
  // Columns added after the migrations test's filled schema are left to their database defaults
  // (the key revision 0; no membership log yet) unless a test sets them.
  const {
    key_revision: _revision,
    log_head_seq: _seq,
    log_head_hash: _hash,
    log_level: _level,
    ...base
  } = ring;
  const columns = {
    ...base,
    ...pick(ringOverrides, ['log_head_seq', 'log_head_hash', 'log_level']),
  };
  await ctx.db
    .insertInto('rings')
    .values(columns as RingsTable)
    .execute();
  return ring;
}

export async function buildRingMember(
  ctx: AppContext,
  ringId: string,
  overrides: Partial<RingMembersTable> & { password?: string } = {},
): Promise<RingMembersTable & { password: string }> {
  const { password = 'Member-Password-1', ...rest } = overrides;
  const now = nowIso(ctx);
  const username = rest.username ?? `membre_${unique()}`;
  const member: RingMembersTable = {
    id: newId(),
    ring_id: ringId,
    customer_id: null,
    username,
    username_key: username.toLowerCase(),
    email: null,
    password_hash: await hashPassword(password),
    role: 'member',
    status: 'active',
    invite_code: newInviteCode(),
    invite_message: '',
    is_used: 1,
    used_at: now,
    last_seen_at: null,
    created_at: now,
    updated_at: now,
    first_readable_epoch: 0,
    admitted_seq: null,
    log_x25519: null,
    log_ed25519: null,
    refused_at: null,
    log_deactivated: 0,
    ...rest,
  };
  // The membership-log columns (migrations 20261128-002 and -004) are left to their defaults unless set.
  const {
    admitted_seq: _admitted,
    log_x25519: _x,
    log_ed25519: _ed,
    refused_at: _refused,
    log_deactivated: _deactivated,
    ...base
  } = member;
  await ctx.db
    .insertInto('ring_members')
    .values({
      ...base,
      ...pick(rest, ['admitted_seq', 'log_x25519', 'log_ed25519', 'refused_at', 'log_deactivated']),
    } as RingMembersTable)
    .execute();
  return { ...member, password };
}

/** The given keys of `source` that it sets (not undefined). */
function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

export async function ringToken(ctx: AppContext, memberId: string): Promise<string> {
  return (await ctx.sessions.issue('ring', memberId)).token;
}

export async function customerToken(ctx: AppContext, customerId: string): Promise<string> {
  return (await ctx.sessions.issue('customer', customerId)).token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * An outbox row with the bodies it was queued with: delivered mails keep no body in the outbox,
 * and the worker delivers (or logs) at once.
 */
function withQueuedBodies<R extends { id: string; body_html: string; body_text: string }>(
  ctx: AppContext,
  row: R,
): R {
  const mail = queuedMail(ctx, row.id);
  return mail ? { ...row, body_html: mail.html, body_text: mail.text } : row;
}

/** The newest queued mail to an address (outbox row, bodies as queued), for reading links in tests. */
export async function lastMailTo(ctx: AppContext, address: string) {
  const row = await ctx.db
    .selectFrom('email_outbox')
    .selectAll()
    .where('to_address', '=', address)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row && withQueuedBodies(ctx, row);
}

export async function mailsTo(ctx: AppContext, address: string) {
  const rows = await ctx.db
    .selectFrom('email_outbox')
    .selectAll()
    .where('to_address', '=', address)
    .orderBy('created_at')
    .execute();
  return rows.map((row) => withQueuedBodies(ctx, row));
}

/** The value of a query parameter in the first link of a mail's text. */
export function linkParam(text: string, path: string, param: string): string {
  const match = new RegExp(`${path.replace('/', '\\/')}\\?${param}=([A-Za-z0-9_-]+)`).exec(text);
  if (!match?.[1]) throw new Error(`No ${path}?${param}= link in mail: ${text}`);
  return match[1];
}
