/**
 * Table types for Kysely. One representation for SQLite and PostgreSQL:
 * ids are app-generated text (time-ordered UUIDs), flags are 0/1 integers, times are UTC ISO-8601
 * text (sortable as strings), money is integer cents, JSON is text.
 */

export type Flag = 0 | 1;

export interface CustomersTable {
  id: string;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  company: string;
  phone: string;
  country: string;
  address_line1: string;
  address_line2: string;
  city: string;
  postal_code: string;
  email_verified: Flag;
  email_verified_at: string | null;
  is_active: Flag;
  status: 'active' | 'suspended' | 'cancelled';
  stripe_customer_id: string | null;
  paypal_customer_id: string | null;
  accepted_terms_at: string | null;
  accepted_privacy_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CustomerTokensTable {
  id: string;
  customer_id: string;
  purpose: 'verify_email' | 'reset_password';
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  /** A verification token may log the customer in once, shortly after it verified the email. */
  login_used_at: string | null;
  created_at: string;
}

/** A Ring member's password-reset link (issue 28): hashed, expiring, single use. */
export interface RingMemberTokensTable {
  id: string;
  member_id: string;
  purpose: 'reset_password';
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface AdminsTable {
  id: string;
  username: string;
  email: string;
  password_hash: string;
  role: 'admin' | 'super_admin';
  is_active: Flag;
  last_login: string | null;
  created_at: string;
  updated_at: string;
}

export interface AdminPermissionsTable {
  id: string;
  admin_id: string;
  module_name: string;
  permission_type: string;
  granted: Flag;
  updated_at: string;
}

export type SessionAudience = 'customer' | 'ring' | 'admin' | 'stream';

export interface SessionsTable {
  id: string;
  audience: SessionAudience;
  subject_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  ip_address: string | null;
  user_agent: string | null;
  /** Stream tokens: the Ring session that minted the token; it dies with that session. */
  parent_session_id: string | null;
  /** Stream tokens: when a socket handshake consumed the token (single use). */
  used_at: string | null;
  /** Ring sessions whose last tab closed: the expiry a request within the grace puts back. */
  closing_expires_at: string | null;
}

export interface SettingsTable {
  category: string;
  key: string;
  setting_value: string;
  updated_at: string;
}

export interface PlansTable {
  id: string;
  /** starter | professional | enterprise for the seeded plans; a slug of the name otherwise. */
  slug: string;
  name: string;
  price_cents: number;
  video_option_cents: number;
  max_users: number;
  max_rings: number;
  storage_bytes: number;
  support_level: 'community' | 'email' | 'priority' | 'dedicated';
  /** JSON array of feature lines. */
  features: string;
  features_chat: Flag;
  features_voice: Flag;
  features_video: Flag;
  /** JSON array, subset of basic, standard, high, military. */
  encryption_levels: string;
  ephemeral_allowed: Flag;
  is_active: Flag;
  popular: Flag;
  sort_order: number;
  created_at: string;
  updated_at: string;
}

export interface PlanSelectionsTable {
  id: string;
  customer_id: string | null;
  /** Hash of an anonymous visitor cookie, for selections made before signing up. */
  visitor_hash: string | null;
  plan_id: string;
  billing_cycle: 'monthly' | 'yearly';
  video_option: Flag;
  created_at: string;
  updated_at: string;
}

export type SubscriptionStatus = 'pending' | 'active' | 'cancelled' | 'expired' | 'suspended';

export interface SubscriptionsTable {
  id: string;
  customer_id: string;
  plan_id: string;
  status: SubscriptionStatus;
  billing_cycle: 'monthly' | 'yearly';
  video_enabled: Flag;
  auto_renew: Flag;
  starts_at: string;
  expires_at: string;
  cancelled_at: string | null;
  provider: string;
  provider_subscription_id: string | null;
  failed_payment_count: number;
  reminder_sent_at: string | null;
  notes: string;
  created_by_admin_id: string | null;
  created_at: string;
  updated_at: string;
}

export type PaymentStatus = 'pending' | 'completed' | 'failed' | 'cancelled' | 'refunded';

export interface PaymentsTable {
  id: string;
  customer_id: string;
  subscription_id: string | null;
  plan_id: string | null;
  plan_name: string;
  billing_cycle: 'monthly' | 'yearly';
  video_enabled: Flag;
  amount_cents: number;
  currency: string;
  provider: string;
  status: PaymentStatus;
  payment_type: 'subscription' | 'one-off';
  /** The provider's reference for the money movement (charge, capture, payment id). */
  transaction_id: string | null;
  /** The provider's reference for the order (checkout session, PayPal order, NOWPayments payment). */
  provider_order_id: string | null;
  failure_reason: string | null;
  /** JSON: provider specific details kept for support (crypto amount, coin, invoice id). */
  metadata: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** Why the back office must look at it: `replaced_subscription_paid` (PAYMENT_FLAG_LABELS). */
  flag?: PaymentFlag | null;
}

export type PaymentFlag = 'replaced_subscription_paid'; // PAYMENT_FLAGS in the contract

/**
 * A call a payment provider must receive (cancel a replaced subscription, refund a charge), written
 * with the local change and retried by the lifecycle job until the provider accepts it.
 */
export interface PaymentProviderActionsTable {
  id: string;
  provider: string;
  action: 'cancel_subscription' | 'refund_invoice' | 'defer_renewal';
  /** The provider's id of the target: subscription (cancel, defer) or invoice (refund). */
  reference: string;
  customer_id: string | null;
  subscription_id: string | null;
  payment_id: string | null;
  /** JSON: what the call needs (refund: payment intent or charge; defer: `until`). */
  details: string;
  status: 'pending' | 'done';
  attempts: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  done_at: string | null;
}

export interface WebhookEventsTable {
  id: string;
  provider: string;
  event_id: string;
  event_type: string;
  received_at: string;
  processed_at: string | null;
}

export interface RingsTable {
  id: string;
  customer_id: string;
  name: string;
  plan_slug: string;
  encryption_level: 'basic' | 'standard' | 'high' | 'military';
  ephemeral_messages: Flag;
  auto_destroy_delay: number;
  allow_voice: Flag;
  allow_video: Flag;
  voice_admin_only: Flag;
  max_file_size_mb: number;
  screen_protection_level: 'disabled' | 'basic' | 'standard' | 'maximum';
  screen_devtools_protection: Flag;
  screen_visibility_protection: Flag;
  screen_experimental_features: Flag;
  screen_recording_detection: Flag;
  storage_quota_bytes: number;
  /** Public salt for deriving the Ring key from its passphrase; the passphrase never reaches the server. */
  kdf_salt_b64: string;
  is_active: Flag;
  created_at: string;
  updated_at: string;
  /** The Ring key epoch new messages must use; 0 until the first member to unlock creates epoch 1. */
  current_epoch: number;
  epoch_created_at: string | null;
  /** Messages stored under the current epoch (rotation every 1,000 or 100 by level). */
  epoch_message_count: number;
  /** A membership change happened: the next message needs a new epoch first. */
  rotation_due: Flag;
  /** "Partager l’historique avec les nouveaux membres": past epochs reach members who join later. */
  share_history: Flag;
  /** Raised with every change the members' key states depend on (migration 20261128-001). */
  key_revision: number;
  /** Head of the signed membership log: seq (-1 before the genesis) and hash (migration 20261128-002). */
  log_head_seq: number;
  log_head_hash: string;
  /** The level the owner signed in the log (null before the genesis). */
  log_level: 'basic' | 'standard' | 'high' | 'military' | null;
}

export interface RingMembersTable {
  id: string;
  ring_id: string;
  /** Set for the owner member: the customer who owns the Ring. */
  customer_id: string | null;
  username: string;
  /** Lower-cased, for case-insensitive uniqueness within a Ring. */
  username_key: string;
  email: string | null;
  password_hash: string | null;
  role: 'owner' | 'admin' | 'member';
  status: 'invited' | 'active' | 'inactive';
  invite_code: string;
  invite_message: string;
  is_used: Flag;
  used_at: string | null;
  last_seen_at: string | null;
  created_at: string;
  updated_at: string;
  /** The first key epoch this member may read: the one current when it joined or the next after a reactivation. */
  first_readable_epoch: number;
  /** Seq of the membership log link that admitted it (genesis for the owner); null: not admitted. */
  admitted_seq: number | null;
  /** 1: the membership log deactivated it (no Ring key until a reactivation link), whatever `status` says. */
  log_deactivated: number;
  /** The member's keys as the verified membership log names them (null before its admission). */
  log_x25519: string | null;
  log_ed25519: string | null;
  /** Set when a member refused the newcomer in the room: it never signs in again. */
  refused_at: string | null;
  /** A pending invitation's code stops working at this time (null once accepted; issue 27). */
  invite_expires_at?: string | null;
}

/** Key derivation of a member key record (issue 27): the column defaults to PBKDF2 for older rows. */
export type MemberKeyKdf = 'pbkdf2-sha256' | 'argon2id';

export interface MemberKeysTable {
  id: string;
  member_id: string;
  kdf_salt_b64: string;
  kdf_iters: number;
  wrapped_dek: string;
  iv_b64: string;
  hmac_hex: string;
  created_at: string;
  updated_at: string;
  /** Published identity public keys (raw, base64); '' until the member first publishes keys. */
  public_x25519: string;
  public_ed25519: string;
  /** Safety number of the public keys ("Numéro de sécurité"). */
  fingerprint: string;
  /** 0: nothing published; 1 on first publish, +1 on each key reset. */
  key_version: number;
  /** Key derivation of the record: 'pbkdf2-sha256' (older records) or 'argon2id'. */
  kdf: MemberKeyKdf;
  /** Argon2id memory in KiB (null for PBKDF2). */
  kdf_mem_kib: number | null;
  /** The identity keys sealed under the recovery key (JSON, opaque), or null. */
  recovery_json: string | null;
}

export interface RingEpochsTable {
  ring_id: string;
  epoch: number;
  level: 'basic' | 'standard' | 'high' | 'military';
  created_by_member_id: string | null;
  created_at: string;
  /** The membership log head when the epoch was created (null: before the log). */
  log_seq: number | null;
}

/** One link of a Ring's signed membership log, as its author signed it (JSON in `link`). */
export interface RingMembershipLinksTable {
  ring_id: string;
  seq: number;
  hash: string;
  type: string;
  author_member_id: string;
  link: string;
  created_at: string;
}

/** What the server did to a Ring (the customer's « Journal du Ring », beside the signed log). */
export interface RingJournalEventsTable {
  id: string;
  ring_id: string;
  kind:
    | 'invitation_created'
    | 'invitation_accepted'
    | 'invitation_removed'
    | 'member_deactivated'
    | 'member_reactivated'
    | 'settings_changed';
  member_id: string | null;
  member_username: string | null;
  /** JSON text: `{ fields: string[] }` for settings_changed. */
  details: string | null;
  created_at: string;
}

/** One epoch key wrapped (HPKE) to one member's public key, signed by its sender: opaque JSON. */
export interface EpochKeySharesTable {
  id: string;
  ring_id: string;
  epoch: number;
  recipient_member_id: string;
  /** The recipient's key_version the share was wrapped to; a key reset deletes the member's shares. */
  recipient_key_version: number;
  sender_member_id: string | null;
  share: string;
  created_at: string;
}

export interface ConversationsTable {
  id: string;
  ring_id: string;
  kind: 'room' | 'dm';
  /** 'room:general' or 'dm:<memberA>:<memberB>' with ids sorted. */
  conversation_key: string;
  created_at: string;
  /** Sequence number of the conversation's latest message (0: none yet). */
  last_seq: number;
}

export interface ConversationParticipantsTable {
  conversation_id: string;
  member_id: string;
  created_at: string;
}

export interface MessagesTable {
  id: string;
  ring_id: string;
  conversation_id: string;
  sender_member_id: string | null;
  content: string;
  message_type: string;
  client_encrypted: Flag;
  is_ephemeral: Flag;
  expires_at: string | null;
  created_at: string;
  /** 1, 2, 3… within the conversation, never reused. */
  seq: number;
  /** The sender's id for the message: a retried send stores it once. */
  client_message_id: string;
  /** The Ring key epoch of the envelope. */
  epoch: number;
  /** Ephemeral: the delay its sender signed (seconds after each reader's first display); null otherwise. */
  ephemeral_sec: number | null;
  /** Ephemeral: when a member other than its sender first displayed it (the sender's countdown starts). */
  first_read_at: string | null;
}

/** A member's first display of an ephemeral message (`recipient` 1: it could read it at sending). */
export interface MessageReadsTable {
  message_id: string;
  member_id: string;
  recipient: Flag;
  read_at: string | null;
}

export interface ConversationReadsTable {
  conversation_id: string;
  member_id: string;
  last_read_seq: number;
  updated_at: string;
}

export interface RingFoldersTable {
  id: string;
  ring_id: string;
  /** Encrypted segments (base64url) joined by "/". */
  path: string;
  created_at: string;
  /** The member who created it (no foreign key; null for folders older than issue 12). */
  created_by_member_id: string | null;
  /** Sealed name and parent (browser blob, issue 27); null until migrated. */
  meta: string | null;
}

export interface RingFilesTable {
  id: string;
  ring_id: string;
  folder_path: string;
  name: string;
  extension: string;
  original_name: string;
  mime_type: string;
  size_bytes: number;
  storage_key: string;
  uploaded_by_member_id: string | null;
  uploaded_at: string;
  updated_at: string;
  /** The file key wrapped under a Ring epoch key (JSON from the browser); null for older files. */
  file_key: string | null;
  key_epoch: number | null;
  /** Sealed name, type, folder and uploader (browser blob, issue 27); null until migrated. */
  meta: string | null;
  /** The metadata version claimed by the last move (issue 28); null: never moved. */
  meta_version: number | null;
}

/** A file key wrapped again under a later epoch key (existing files given to a newcomer). */
export interface RingFileKeyWrapsTable {
  file_id: string;
  ring_id: string;
  epoch: number;
  /** The wrapped key (JSON from the browser, as `ring_files.file_key`). */
  file_key: string;
  created_by_member_id: string;
  created_at: string;
}

/** Bytes set aside for an upload in progress (multipart or tus), counted against the quota. */
export interface RingUploadReservationsTable {
  /** For tus, the upload id of its URL. */
  id: string;
  ring_id: string;
  member_id: string;
  kind: 'multipart' | 'tus';
  bytes: number;
  /** The file id the upload will create (tus: from its metadata), unique while reserved. */
  file_id: string | null;
  /** tus: the upload's checked metadata (JSON); '{}' for multipart. */
  metadata: string;
  created_at: string;
  /** Last activity: a tus upload idle for a day is purged with its reservation. */
  updated_at: string;
}

export interface CallsTable {
  id: string;
  ring_id: string;
  caller_member_id: string | null;
  callee_member_id: string | null;
  call_type: 'voice' | 'video';
  /** `connected`: a member reported the peer connection up (both show `in_call`). */
  status: 'ringing' | 'accepted' | 'connected' | 'rejected' | 'cancelled' | 'ended';
  started_at: string;
  answered_at: string | null;
  ended_at: string | null;
}

export interface NotificationSettingsTable {
  id: string;
  owner_type: 'customer' | 'member';
  owner_id: string;
  /** JSON of the notification settings object (spec 2 §3). */
  settings: string;
  updated_at: string;
}

export interface EmailTemplatesTable {
  id: string;
  name: string;
  subject: string;
  body_html: string;
  body_text: string;
  /** JSON array of variable names the template may use. */
  variables: string;
  is_active: Flag;
  created_at: string;
  updated_at: string;
}

export type OutboxStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'logged';

export interface EmailOutboxTable {
  id: string;
  to_address: string;
  subject: string;
  body_html: string;
  body_text: string;
  template_name: string | null;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export interface SystemLogsTable {
  id: string;
  level: 'info' | 'warning' | 'error' | 'critical';
  category: string;
  message: string;
  /** JSON text. */
  details: string | null;
  ip_address: string | null;
  user_agent: string | null;
  user_id: string | null;
  created_at: string;
}

export interface ContactMessagesTable {
  id: string;
  name: string;
  email: string;
  subject: string;
  message: string;
  ip_address: string | null;
  created_at: string;
  handled_at: string | null;
}

export interface WebPushKeysTable {
  /** Always 'vapid': the one key pair of the deployment. */
  id: string;
  /** base64url of the uncompressed P-256 public key (the applicationServerKey browsers get). */
  public_key: string;
  /** base64url of the private scalar: signs the VAPID JWTs; never served, never exported. */
  private_key: string;
  created_at: string;
}

export interface PushSubscriptionsTable {
  id: string;
  member_id: string;
  /** The push service's URL for one browser (a capability: whoever holds it may wake the device). */
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: string;
  last_error_at: string | null;
}

export interface DB {
  customers: CustomersTable;
  customer_tokens: CustomerTokensTable;
  ring_member_tokens: RingMemberTokensTable;
  admins: AdminsTable;
  admin_permissions: AdminPermissionsTable;
  sessions: SessionsTable;
  settings: SettingsTable;
  plans: PlansTable;
  plan_selections: PlanSelectionsTable;
  subscriptions: SubscriptionsTable;
  payments: PaymentsTable;
  payment_provider_actions: PaymentProviderActionsTable;
  webhook_events: WebhookEventsTable;
  rings: RingsTable;
  ring_members: RingMembersTable;
  member_keys: MemberKeysTable;
  ring_epochs: RingEpochsTable;
  ring_membership_links: RingMembershipLinksTable;
  ring_journal_events: RingJournalEventsTable;
  epoch_key_shares: EpochKeySharesTable;
  conversations: ConversationsTable;
  conversation_participants: ConversationParticipantsTable;
  messages: MessagesTable;
  message_reads: MessageReadsTable;
  conversation_reads: ConversationReadsTable;
  ring_folders: RingFoldersTable;
  ring_files: RingFilesTable;
  ring_file_key_wraps: RingFileKeyWrapsTable;
  ring_upload_reservations: RingUploadReservationsTable;
  calls: CallsTable;
  notification_settings: NotificationSettingsTable;
  email_templates: EmailTemplatesTable;
  email_outbox: EmailOutboxTable;
  system_logs: SystemLogsTable;
  contact_messages: ContactMessagesTable;
  web_push_keys: WebPushKeysTable;
  push_subscriptions: PushSubscriptionsTable;
}
