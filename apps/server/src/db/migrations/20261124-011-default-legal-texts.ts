import { SETTING_DEFINITIONS } from '@securering/contract';
import type { Kysely } from 'kysely';

/**
 * Registration requires accepting the CGU and the privacy policy, which were empty by default: the
 * French models (marked "Modèle à adapter") fill the legal pages still empty. What an administrator
 * wrote is kept; new databases get the models from the settings seed.
 */
const DEFAULTS: Record<string, string> = {
  terms_content: SETTING_DEFINITIONS.legal.terms_content.default,
  privacy_content: SETTING_DEFINITIONS.legal.privacy_content.default,
  legal_content: SETTING_DEFINITIONS.legal.legal_content.default,
};

interface SettingsOnly {
  settings: { category: string; key: string; setting_value: string; updated_at: string };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [key, html] of Object.entries(DEFAULTS)) {
    await (db as Kysely<SettingsOnly>)
      .updateTable('settings')
      .set({ setting_value: html, updated_at: new Date().toISOString() })
      .where('category', '=', 'legal')
      .where('key', '=', key)
      .where('setting_value', '=', '')
      .execute();
  }
}

/** Empties the legal pages that still hold the models (an edited page stays). */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [key, html] of Object.entries(DEFAULTS)) {
    await (db as Kysely<SettingsOnly>)
      .updateTable('settings')
      .set({ setting_value: '', updated_at: new Date().toISOString() })
      .where('category', '=', 'legal')
      .where('key', '=', key)
      .where('setting_value', '=', html)
      .execute();
  }
}
