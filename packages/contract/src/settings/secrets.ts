import type { SettingsCategory } from './definitions';

/**
 * The secret settings (visibility `secret`), each with a French label and the non-secret keys of
 * its category that say where it is sent or whom it belongs to. A stored secret kept behind the
 * marker must never follow a change of those keys: the admin enters it again.
 * - SMTP password: sent to host:port as username.
 * - Stripe secret keys: belong to the account of the public key of the same mode; the webhook
 *   secret belongs to the endpoint of one mode (test or live).
 * - PayPal client secrets: belong to the client id of the same environment.
 * - NOWPayments API key and IPN secret: sent to / checked for the sandbox or the live API.
 */
export const SECRET_SETTINGS = {
  smtp: {
    password: { label: 'Mot de passe SMTP', destination: ['host', 'port', 'username'] },
  },
  stripe: {
    secret_key_test: { label: 'Clé secrète Stripe (test)', destination: ['public_key_test'] },
    secret_key_live: { label: 'Clé secrète Stripe (production)', destination: ['public_key_live'] },
    webhook_secret: { label: 'Secret du webhook Stripe', destination: ['test_mode'] },
  },
  paypal: {
    client_secret_test: { label: 'Secret client PayPal (sandbox)', destination: ['client_id_test'] },
    client_secret_live: { label: 'Secret client PayPal (production)', destination: ['client_id_live'] },
  },
  nowpayments: {
    api_key: { label: 'Clé API NOWPayments', destination: ['test_mode'] },
    ipn_secret: { label: 'Secret IPN NOWPayments', destination: ['test_mode'] },
  },
} as const satisfies Partial<
  Record<SettingsCategory, Record<string, { label: string; destination: readonly string[] }>>
>;

export interface SecretSettingRule {
  label: string;
  destination: readonly string[];
}

/** The rule of one secret setting, or undefined when the key is not a secret. */
export function getSecretSetting(category: string, key: string): SecretSettingRule | undefined {
  const rules = (SECRET_SETTINGS as Record<string, Record<string, SecretSettingRule>>)[category];
  return rules && Object.prototype.hasOwnProperty.call(rules, key) ? rules[key] : undefined;
}

/** The secrets of a category with their rules. */
export function secretSettingsOf(category: string): Array<[string, SecretSettingRule]> {
  const rules = (SECRET_SETTINGS as Record<string, Record<string, SecretSettingRule>>)[category];
  return rules ? Object.entries(rules) : [];
}

/** "Mot de passe SMTP" for smtp.password; the key itself when unknown. */
export const secretSettingLabel = (category: string, key: string): string =>
  getSecretSetting(category, key)?.label ?? `${category}.${key}`;

/** The refusal of a save or test that would carry stored secrets to a new destination. */
export const secretsReentryMessage = (labels: readonly string[]): string =>
  `À saisir de nouveau, car la destination a changé : ${labels.join(', ')}`;
