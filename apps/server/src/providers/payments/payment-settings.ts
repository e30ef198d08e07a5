import type { AppConfig } from '../../config';
import type { SettingsService } from '../../modules/settings/settings.service';

export interface StripeSettings {
  enabled: boolean;
  testMode: boolean;
  secretKey: string;
  publicKey: string;
  webhookSecret: string;
  apiBase: string | undefined;
}

export interface PaypalSettings {
  enabled: boolean;
  testMode: boolean;
  clientId: string;
  clientSecret: string;
  webhookId: string;
  apiBase: string;
}

export interface NowPaymentsSettings {
  enabled: boolean;
  testMode: boolean;
  apiKey: string;
  ipnSecret: string;
  apiBase: string;
}

/** Provider settings from the stripe, paypal and nowpayments categories, test or live keys by mode. */
export async function loadStripeSettings(
  settings: SettingsService,
  config: AppConfig,
): Promise<StripeSettings> {
  const s = await settings.getCategory('stripe');
  const testMode = s.test_mode !== '0';
  return {
    enabled: s.enabled === '1',
    testMode,
    secretKey: (testMode ? s.secret_key_test : s.secret_key_live) ?? '',
    publicKey: (testMode ? s.public_key_test : s.public_key_live) ?? '',
    webhookSecret: s.webhook_secret ?? '',
    apiBase: config.providerBases.stripe,
  };
}

export async function loadPaypalSettings(
  settings: SettingsService,
  config: AppConfig,
): Promise<PaypalSettings> {
  const s = await settings.getCategory('paypal');
  const testMode = s.test_mode !== '0';
  return {
    enabled: s.enabled === '1',
    testMode,
    clientId: (testMode ? s.client_id_test : s.client_id_live) ?? '',
    clientSecret: (testMode ? s.client_secret_test : s.client_secret_live) ?? '',
    webhookId: s.webhook_id ?? '',
    apiBase:
      config.providerBases.paypal ??
      (testMode ? 'https://api-m.sandbox.paypal.com' : 'https://api-m.paypal.com'),
  };
}

export async function loadNowPaymentsSettings(
  settings: SettingsService,
  config: AppConfig,
): Promise<NowPaymentsSettings> {
  const s = await settings.getCategory('nowpayments');
  const testMode = s.test_mode !== '0';
  return {
    enabled: s.enabled === '1',
    testMode,
    apiKey: s.api_key ?? '',
    ipnSecret: s.ipn_secret ?? '',
    apiBase:
      config.providerBases.nowpayments ??
      (testMode ? 'https://api-sandbox.nowpayments.io' : 'https://api.nowpayments.io'),
  };
}
