import {
  SECRET_MARKER,
  SETTING_DEFINITIONS,
  SETTINGS_CATEGORIES,
  MESSAGES,
  checkSettingValue,
  getSettingDefinition,
  isRetiredSetting,
  isSettingsCategory,
  secretSettingLabel,
  secretsReentryMessage,
  type SettingDefinition,
  type SettingsCategory,
  type TSettingsData,
} from '@securering/contract';
import { badRequest } from '../../lib/app-error';
import type { Clock } from '../../lib/clock';
import { sanitizeRichHtml } from '../../lib/sanitize-html';
import { secretsToReenter } from './settings.policy';
import type { SettingsRepository } from './settings.repository';

export type SettingsAudience = 'public' | 'admin';

/** Keys old clients send under another name. */
const KEY_ALIASES: Record<string, string> = { sitename: 'site_name' };

/** Cross-key rules the per-key kinds cannot express. */
function checkCategoryRules(category: SettingsCategory, merged: Record<string, string>): string | undefined {
  if (category === 'realtime') {
    const initial = Number(merged.polling_initial_sec);
    const max = Number(merged.polling_max_sec);
    if (max < initial) return "L'intervalle maximal doit être supérieur ou égal à l'intervalle initial";
  }
  return undefined;
}

/**
 * The part of an admin read a public read returns: the public keys only, in the same order, and
 * no category left without one. `publicSettingsOf(await read('admin', c))` equals
 * `await read('public', c)` (public keys are never secrets, so their values are the same).
 */
export function publicSettingsOf(adminData: TSettingsData): TSettingsData {
  const data: TSettingsData = {};
  for (const [cat, values] of Object.entries(adminData)) {
    const out: Record<string, { setting_value: string }> = {};
    for (const [key, value] of Object.entries(values)) {
      if (getSettingDefinition(cat, key)?.visibility === 'public') out[key] = value;
    }
    if (Object.keys(out).length > 0) data[cat] = out;
  }
  return data;
}

/**
 * Settings by category and key. Public reads get public keys only; admin reads also get admin keys
 * and, for secrets, a marker instead of the value. Saving the marker keeps the stored secret.
 */
export class SettingsService {
  constructor(
    private readonly repo: SettingsRepository,
    private readonly clock: Clock,
  ) {}

  async read(audience: SettingsAudience, category?: string): Promise<TSettingsData> {
    if (category && !isSettingsCategory(category)) return {};
    const rows = await this.repo.findAll(category);
    const stored = new Map(rows.map((r) => [`${r.category}.${r.key}`, r.setting_value]));
    const data: TSettingsData = {};
    const categories = category ? [category as SettingsCategory] : SETTINGS_CATEGORIES;
    for (const cat of categories) {
      const defs = SETTING_DEFINITIONS[cat] as Record<string, SettingDefinition>;
      const out: Record<string, { setting_value: string }> = {};
      for (const [key, def] of Object.entries(defs)) {
        if (def.visibility !== 'public' && audience === 'public') continue;
        const value = stored.get(`${cat}.${key}`) ?? def.default;
        out[key] = { setting_value: def.visibility === 'secret' ? (value ? SECRET_MARKER : '') : value };
      }
      if (Object.keys(out).length > 0) data[cat] = out;
    }
    return data;
  }

  /** Raw values of a category, secrets included: for server-side use only. */
  async getCategory(category: SettingsCategory): Promise<Record<string, string>> {
    const defs = SETTING_DEFINITIONS[category] as Record<string, SettingDefinition>;
    const rows = await this.repo.findAll(category);
    const out: Record<string, string> = {};
    for (const [key, def] of Object.entries(defs)) out[key] = def.default;
    for (const row of rows) if (row.key in out) out[row.key] = row.setting_value;
    return out;
  }

  async getValue(category: SettingsCategory, key: string): Promise<string> {
    const def = getSettingDefinition(category, key);
    const value = await this.repo.findValue(category, key);
    return value ?? def?.default ?? '';
  }

  async isFlagOn(category: SettingsCategory, key: string): Promise<boolean> {
    return (await this.getValue(category, key)) === '1';
  }

  /**
   * Validates every value first and stores nothing if one is invalid. A secret given as the marker
   * keeps the stored value, unless the same save changes its destination (then it must be given
   * again: secretsToReenter). Returns the keys changed.
   */
  async save(category: string, input: Record<string, unknown>): Promise<string[]> {
    if (!isSettingsCategory(category)) throw badRequest(MESSAGES.unknownSettingsCategory);
    const current = await this.getCategory(category);
    const updates: Record<string, string> = {};
    for (const [rawKey, rawValue] of Object.entries(input)) {
      // A retired key (an older client's form) is accepted and dropped: nothing reads it.
      if (isRetiredSetting(category, rawKey)) continue;
      const key = Object.hasOwn(KEY_ALIASES, rawKey) ? KEY_ALIASES[rawKey]! : rawKey;
      const def = getSettingDefinition(category, key);
      if (!def) throw badRequest(`${MESSAGES.unknownSettingKey} : ${rawKey}`);
      if (def.visibility === 'secret' && rawValue === SECRET_MARKER) continue;
      const check = checkSettingValue(def.kind, rawValue, key);
      if (!check.ok) throw badRequest(check.error);
      updates[key] = def.kind.type === 'html' ? await sanitizeRichHtml(check.value) : check.value;
    }
    // A stored secret never follows its destination elsewhere: changing where it goes needs it again.
    const stale = secretsToReenter(category, current, updates);
    if (stale.length > 0)
      throw badRequest(secretsReentryMessage(stale.map((key) => secretSettingLabel(category, key))));
    const ruleError = checkCategoryRules(category, { ...current, ...updates });
    if (ruleError) throw badRequest(ruleError);
    const now = this.clock.now().toISOString();
    await this.repo.upsertMany(
      Object.entries(updates).map(([key, setting_value]) => ({
        category,
        key,
        setting_value,
        updated_at: now,
      })),
    );
    return Object.keys(updates);
  }

  /** Inserts every known key with its French default where missing (idempotent). */
  async seedDefaults(): Promise<void> {
    const now = this.clock.now().toISOString();
    const rows = SETTINGS_CATEGORIES.flatMap((category) =>
      Object.entries(SETTING_DEFINITIONS[category] as Record<string, SettingDefinition>).map(
        ([key, def]) => ({
          category,
          key,
          setting_value: def.default,
          updated_at: now,
        }),
      ),
    );
    await this.repo.insertMissing(rows);
  }
}
