import { secretSettingsOf, type AdminModule, type SettingsCategory } from '@securering/contract';

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

/**
 * The secrets of a category that a save or an SMTP test may not keep: the stored value is set,
 * the request does not give a new one (`updates` lacks it: absent or the marker), and it changes
 * one of the keys naming the secret's destination (SECRET_SETTINGS). A stored secret is never
 * sent to, or kept for, a destination it was not entered for.
 *
 * `stored` holds the current values, `updates` the normalised values the request writes.
 */
export function secretsToReenter(
  category: string,
  stored: Readonly<Record<string, string>>,
  updates: Readonly<Record<string, string>>,
): string[] {
  const stale: string[] = [];
  for (const [key, rule] of secretSettingsOf(category)) {
    if (!stored[key] || Object.hasOwn(updates, key)) continue;
    const moved = rule.destination.some(
      (other) => Object.hasOwn(updates, other) && updates[other] !== (stored[other] ?? ''),
    );
    if (moved) stale.push(key);
  }
  return stale;
}
