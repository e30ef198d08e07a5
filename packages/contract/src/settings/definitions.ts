import { DEFAULT_LEGAL_NOTICE_HTML, DEFAULT_PRIVACY_HTML, DEFAULT_TERMS_HTML } from './legal-defaults';

/**
 * Every setting the product knows, with its French default and who may read it.
 * - public: returned by the public reads (site texts, colours, realtime tuning, provider flags)
 * - admin: returned only to an authenticated admin
 * - secret: never returned; reads get SECRET_MARKER when a value is stored
 */
export type SettingVisibility = 'public' | 'admin' | 'secret';

/** How a value is checked before it is stored. */
export type SettingKind =
  | { type: 'text'; max?: number }
  | { type: 'html' }
  | { type: 'flag' }
  | { type: 'color' }
  | { type: 'email' }
  | { type: 'url' }
  | { type: 'number'; min: number; max: number; step?: number }
  | { type: 'choice'; options: readonly string[] };

export interface SettingDefinition {
  default: string;
  visibility: SettingVisibility;
  kind: SettingKind;
}

const TEXT: SettingKind = { type: 'text', max: 2000 };
const pub = (value: string, kind: SettingKind = TEXT): SettingDefinition => ({
  default: value,
  visibility: 'public',
  kind,
});
const adm = (value: string, kind: SettingKind = TEXT): SettingDefinition => ({
  default: value,
  visibility: 'admin',
  kind,
});
const secret = (): SettingDefinition => ({
  default: '',
  visibility: 'secret',
  kind: { type: 'text', max: 4000 },
});
const flag = (value: '0' | '1', visibility: SettingVisibility = 'public'): SettingDefinition => ({
  default: value,
  visibility,
  kind: { type: 'flag' },
});
const num = (value: string, min: number, max: number, step?: number): SettingDefinition => ({
  default: value,
  visibility: 'public',
  kind: step === undefined ? { type: 'number', min, max } : { type: 'number', min, max, step },
});
const HTML: SettingKind = { type: 'html' };
const URL_KIND: SettingKind = { type: 'url' };
const IMAGE_PATH: SettingKind = { type: 'text', max: 500 };

export const SETTING_DEFINITIONS = {
  general: {
    site_name: pub('SecureRing'),
    site_title: pub('SecureRing — Communication privée chiffrée de bout en bout'),
    tagline: pub('Vos échanges d’équipe, chiffrés de bout en bout'),
    meta_description: pub(
      'SecureRing : espaces de communication privés chiffrés de bout en bout pour les entreprises et les équipes — chat, appels vocaux, visioconférence et partage de fichiers.',
    ),
    meta_keywords: pub(
      'chat chiffré, messagerie sécurisée, chiffrement de bout en bout, visioconférence, entreprise',
    ),
    copyright: pub('© 2026 SecureRing. Tous droits réservés.'),
    footer_text: pub('Communication privée, chiffrée de bout en bout.'),
    primary_color: pub('#3b82f6', { type: 'color' }),
    secondary_color: pub('#64748b', { type: 'color' }),
    contact_email: pub('contact@securering.fr', { type: 'email' }),
    contact_phone: pub('+33 1 23 45 67 89'),
    contact_address: pub('10 rue de la Paix, 75002 Paris, France'),
    logo: pub('', IMAGE_PATH),
    favicon: pub('', IMAGE_PATH),
    ios_app_url: pub('', URL_KIND),
    android_app_url: pub('', URL_KIND),
    apk_direct_url: pub('', URL_KIND),
    ring_refresh_interval: num('10', 5, 300),
  },
  // Models to adapt (legal-defaults.ts): registration requires accepting the first two.
  legal: {
    terms_content: pub(DEFAULT_TERMS_HTML, HTML),
    privacy_content: pub(DEFAULT_PRIVACY_HTML, HTML),
    legal_content: pub(DEFAULT_LEGAL_NOTICE_HTML, HTML),
  },
  maintenance: {
    maintenance_mode: flag('0'),
  },
  smtp: {
    host: adm(''),
    port: adm('587', { type: 'number', min: 1, max: 65535 }),
    username: adm(''),
    password: secret(),
    encryption: adm('tls', { type: 'choice', options: ['tls', 'ssl', 'none'] }),
    from_email: adm('no-reply@securering.fr', { type: 'email' }),
    from_name: adm('SecureRing'),
  },
  stripe: {
    enabled: flag('0'),
    test_mode: flag('1'),
    public_key_test: pub(''),
    secret_key_test: secret(),
    public_key_live: pub(''),
    secret_key_live: secret(),
    webhook_secret: secret(),
  },
  paypal: {
    enabled: flag('0'),
    test_mode: flag('1'),
    client_id_test: pub(''),
    client_secret_test: secret(),
    client_id_live: pub(''),
    client_secret_live: secret(),
    webhook_id: adm(''),
  },
  nowpayments: {
    enabled: flag('0'),
    test_mode: flag('1'),
    api_key: secret(),
    ipn_secret: secret(),
  },
  realtime: {
    ws_required: flag('1'),
    polling_enabled: flag('0'),
    polling_initial_sec: num('60', 10, 600),
    polling_max_sec: num('300', 30, 900),
    polling_backoff_factor: num('2', 1, 4, 0.5),
    heartbeat_sec: num('20', 5, 120),
    grace_sec: num('3', 1, 60),
  },
  system: {
    logging_enabled: flag('1', 'admin'),
  },
} as const satisfies Record<string, Record<string, SettingDefinition>>;

export type SettingsCategory = keyof typeof SETTING_DEFINITIONS;

/**
 * Keys older clients may still send, accepted and dropped (not stored). general.ring_storage_dir
 * (« Dossier de stockage des Rings ») was saved and read by nothing: where Ring files live is a
 * deployment fact (DATA_DIR/ring-files or S3_BUCKET, the same on every instance), not a live setting.
 */
export const RETIRED_SETTING_KEYS: Readonly<Record<string, readonly string[]>> = {
  general: ['ring_storage_dir', 'ringStorageDir'],
};

/** True for a key of RETIRED_SETTING_KEYS. */
export function isRetiredSetting(category: string, key: string): boolean {
  return Object.hasOwn(RETIRED_SETTING_KEYS, category) && RETIRED_SETTING_KEYS[category]!.includes(key);
}
export const SETTINGS_CATEGORIES = Object.keys(SETTING_DEFINITIONS) as SettingsCategory[];

export function isSettingsCategory(value: string): value is SettingsCategory {
  return Object.prototype.hasOwnProperty.call(SETTING_DEFINITIONS, value);
}

export function getSettingDefinition(category: string, key: string): SettingDefinition | undefined {
  if (!isSettingsCategory(category)) return undefined;
  const defs = SETTING_DEFINITIONS[category] as Record<string, SettingDefinition>;
  return Object.prototype.hasOwnProperty.call(defs, key) ? defs[key] : undefined;
}
