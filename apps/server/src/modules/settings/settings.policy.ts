import type { AdminModule, SettingsCategory } from '@securering/contract';

/** Which back-office module governs each settings category (the tab that edits it). */
export const SETTINGS_CATEGORY_MODULE: Record<SettingsCategory, AdminModule> = {
  general: 'site_settings',
  legal: 'site_settings',
  maintenance: 'site_settings',
  realtime: 'site_settings',
  smtp: 'email_management',
  stripe: 'payment_settings',
  paypal: 'payment_settings',
  nowpayments: 'payment_settings',
  system: 'system_logs',
};
