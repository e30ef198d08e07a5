import type { Kysely } from 'kysely';

/**
 * The whole domain of the three specification documents. Written with the schema builder only,
 * so the same file runs on SQLite and PostgreSQL. `bigint` is used where values may pass 2^31
 * (bytes); the PostgreSQL driver is configured to read int8 back as a JS number.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;

  await s
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('company', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('country', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('address_line1', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('address_line2', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('city', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('postal_code', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('email_verified_at', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('stripe_customer_id', 'text')
    .addColumn('paypal_customer_id', 'text')
    .addColumn('accepted_terms_at', 'text')
    .addColumn('accepted_privacy_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('customers_created_at_idx').on('customers').column('created_at').execute();

  await s
    .createTable('customer_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('login_used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s
    .createIndex('customer_tokens_customer_idx')
    .on('customer_tokens')
    .columns(['customer_id', 'purpose'])
    .execute();

  await s
    .createTable('admins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('admin'))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('last_login', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('admin_permissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('admin_id', 'text', (c) => c.notNull().references('admins.id').onDelete('cascade'))
    .addColumn('module_name', 'text', (c) => c.notNull())
    .addColumn('permission_type', 'text', (c) => c.notNull())
    .addColumn('granted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('admin_permissions_unique', ['admin_id', 'module_name', 'permission_type'])
    .execute();

  await s
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('audience', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await s.createIndex('sessions_subject_idx').on('sessions').columns(['audience', 'subject_id']).execute();
  await s.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();

  await s
    .createTable('settings')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('setting_value', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('settings_pk', ['category', 'key'])
    .execute();

  await s
    .createTable('plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('video_option_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_users', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('max_rings', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('storage_bytes', 'bigint', (c) => c.notNull())
    .addColumn('support_level', 'text', (c) => c.notNull().defaultTo('community'))
    .addColumn('features', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('features_chat', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('features_voice', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('features_video', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('encryption_levels', 'text', (c) => c.notNull().defaultTo('["basic","standard"]'))
    .addColumn('ephemeral_allowed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('popular', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('plans_slug_idx').on('plans').column('slug').execute();

  await s
    .createTable('plan_selections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.unique().references('customers.id').onDelete('cascade'))
    .addColumn('visitor_hash', 'text', (c) => c.unique())
    .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id').onDelete('cascade'))
    .addColumn('billing_cycle', 'text', (c) => c.notNull().defaultTo('monthly'))
    .addColumn('video_option', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('billing_cycle', 'text', (c) => c.notNull().defaultTo('monthly'))
    .addColumn('video_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_renew', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('cancelled_at', 'text')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_subscription_id', 'text')
    .addColumn('failed_payment_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reminder_sent_at', 'text')
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by_admin_id', 'text', (c) => c.references('admins.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s
    .createIndex('subscriptions_customer_idx')
    .on('subscriptions')
    .columns(['customer_id', 'status'])
    .execute();
  await s
    .createIndex('subscriptions_expiry_idx')
    .on('subscriptions')
    .columns(['status', 'expires_at'])
    .execute();
  await s
    .createIndex('subscriptions_provider_ref_idx')
    .on('subscriptions')
    .columns(['provider', 'provider_subscription_id'])
    .execute();

  await s
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('subscription_id', 'text', (c) => c.references('subscriptions.id').onDelete('set null'))
    .addColumn('plan_id', 'text', (c) => c.references('plans.id').onDelete('set null'))
    .addColumn('plan_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('billing_cycle', 'text', (c) => c.notNull().defaultTo('monthly'))
    .addColumn('video_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('EUR'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('payment_type', 'text', (c) => c.notNull().defaultTo('subscription'))
    .addColumn('transaction_id', 'text')
    .addColumn('provider_order_id', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await s
    .createIndex('payments_customer_idx')
    .on('payments')
    .columns(['customer_id', 'created_at'])
    .execute();
  await s.createIndex('payments_created_idx').on('payments').columns(['created_at', 'status']).execute();
  await s
    .createIndex('payments_order_idx')
    .on('payments')
    .columns(['provider', 'provider_order_id'])
    .execute();

  await s
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('processed_at', 'text')
    .addUniqueConstraint('webhook_events_unique', ['provider', 'event_id'])
    .execute();

  await s
    .createTable('rings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan_slug', 'text', (c) => c.notNull())
    .addColumn('encryption_level', 'text', (c) => c.notNull().defaultTo('standard'))
    .addColumn('ephemeral_messages', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_destroy_delay', 'integer', (c) => c.notNull().defaultTo(300))
    .addColumn('allow_voice', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('allow_video', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('voice_admin_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_file_size_mb', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('screen_protection_level', 'text', (c) => c.notNull().defaultTo('standard'))
    .addColumn('screen_devtools_protection', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('screen_visibility_protection', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('screen_experimental_features', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('screen_recording_detection', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('storage_quota_bytes', 'bigint', (c) => c.notNull())
    .addColumn('kdf_salt_b64', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('rings_customer_idx').on('rings').column('customer_id').execute();

  await s
    .createTable('ring_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('customer_id', 'text', (c) => c.references('customers.id').onDelete('cascade'))
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('username_key', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('member'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('invited'))
    .addColumn('invite_code', 'text', (c) => c.notNull().unique())
    .addColumn('invite_message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('is_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('used_at', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ring_members_username_unique', ['ring_id', 'username_key'])
    .execute();
  await s.createIndex('ring_members_email_idx').on('ring_members').column('email').execute();

  await s
    .createTable('member_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('member_id', 'text', (c) =>
      c.notNull().unique().references('ring_members.id').onDelete('cascade'),
    )
    .addColumn('kdf_salt_b64', 'text', (c) => c.notNull())
    .addColumn('kdf_iters', 'integer', (c) => c.notNull())
    .addColumn('wrapped_dek', 'text', (c) => c.notNull())
    .addColumn('iv_b64', 'text', (c) => c.notNull())
    .addColumn('hmac_hex', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('conversation_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('conversations_key_unique', ['ring_id', 'conversation_key'])
    .execute();

  await s
    .createTable('conversation_participants')
    .addColumn('conversation_id', 'text', (c) =>
      c.notNull().references('conversations.id').onDelete('cascade'),
    )
    .addColumn('member_id', 'text', (c) => c.notNull().references('ring_members.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('conversation_participants_pk', ['conversation_id', 'member_id'])
    .execute();

  await s
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('conversation_id', 'text', (c) =>
      c.notNull().references('conversations.id').onDelete('cascade'),
    )
    .addColumn('sender_member_id', 'text', (c) => c.references('ring_members.id').onDelete('set null'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('message_type', 'text', (c) => c.notNull().defaultTo('text'))
    .addColumn('client_encrypted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_ephemeral', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s
    .createIndex('messages_conversation_idx')
    .on('messages')
    .columns(['conversation_id', 'created_at'])
    .execute();
  await s
    .createIndex('messages_ring_created_idx')
    .on('messages')
    .columns(['ring_id', 'created_at'])
    .execute();
  await s.createIndex('messages_expires_idx').on('messages').column('expires_at').execute();

  await s
    .createTable('ring_folders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ring_folders_path_unique', ['ring_id', 'path'])
    .execute();

  await s
    .createTable('ring_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('folder_path', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('extension', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('original_name', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull().defaultTo('application/octet-stream'))
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('uploaded_by_member_id', 'text', (c) => c.references('ring_members.id').onDelete('set null'))
    .addColumn('uploaded_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('ring_files_folder_idx').on('ring_files').columns(['ring_id', 'folder_path']).execute();

  await s
    .createTable('calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ring_id', 'text', (c) => c.notNull().references('rings.id').onDelete('cascade'))
    .addColumn('caller_member_id', 'text', (c) => c.references('ring_members.id').onDelete('set null'))
    .addColumn('callee_member_id', 'text', (c) => c.references('ring_members.id').onDelete('set null'))
    .addColumn('call_type', 'text', (c) => c.notNull().defaultTo('voice'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('ringing'))
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('answered_at', 'text')
    .addColumn('ended_at', 'text')
    .execute();
  await s.createIndex('calls_ring_idx').on('calls').columns(['ring_id', 'started_at']).execute();

  await s
    .createTable('notification_settings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_type', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('notification_settings_owner_unique', ['owner_type', 'owner_id'])
    .execute();

  await s
    .createTable('email_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_html', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('variables', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('email_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_html', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull())
    .addColumn('template_name', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .execute();
  await s
    .createIndex('email_outbox_due_idx')
    .on('email_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await s
    .createTable('system_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('system_logs_created_idx').on('system_logs').column('created_at').execute();
  await s
    .createIndex('system_logs_filter_idx')
    .on('system_logs')
    .columns(['category', 'level', 'created_at'])
    .execute();

  await s
    .createTable('contact_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('handled_at', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const tables = [
    'contact_messages',
    'system_logs',
    'email_outbox',
    'email_templates',
    'notification_settings',
    'calls',
    'ring_files',
    'ring_folders',
    'messages',
    'conversation_participants',
    'conversations',
    'member_keys',
    'ring_members',
    'rings',
    'webhook_events',
    'payments',
    'subscriptions',
    'plan_selections',
    'plans',
    'settings',
    'sessions',
    'admin_permissions',
    'admins',
    'customer_tokens',
    'customers',
  ];
  for (const table of tables) await db.schema.dropTable(table).ifExists().execute();
}
