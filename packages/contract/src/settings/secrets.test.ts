import { describe, expect, it } from 'vitest';
import {
  SETTING_DEFINITIONS,
  SETTINGS_CATEGORIES,
  getSettingDefinition,
  type SettingDefinition,
} from './definitions';
import { getSecretSetting, secretSettingsOf } from './secrets';

describe('SECRET_SETTINGS', () => {
  it('covers exactly the settings whose visibility is secret', () => {
    for (const category of SETTINGS_CATEGORIES) {
      const defs = SETTING_DEFINITIONS[category] as Record<string, SettingDefinition>;
      const secrets = Object.entries(defs)
        .filter(([, def]) => def.visibility === 'secret')
        .map(([key]) => key)
        .sort();
      expect(
        secretSettingsOf(category)
          .map(([key]) => key)
          .sort(),
        category,
      ).toEqual(secrets);
    }
  });

  it('names destinations that are known, non-secret keys of the same category', () => {
    for (const category of SETTINGS_CATEGORIES) {
      for (const [key, rule] of secretSettingsOf(category)) {
        expect(rule.destination.length, `${category}.${key}`).toBeGreaterThan(0);
        for (const other of rule.destination) {
          const def = getSettingDefinition(category, other);
          expect(def, `${category}.${other}`).toBeDefined();
          expect(def!.visibility, `${category}.${other}`).not.toBe('secret');
        }
      }
    }
  });

  it('knows nothing of other keys, even inherited names', () => {
    expect(getSecretSetting('smtp', 'host')).toBeUndefined();
    expect(getSecretSetting('smtp', 'constructor')).toBeUndefined();
    expect(getSecretSetting('nope', 'password')).toBeUndefined();
    expect(getSecretSetting('smtp', 'password')?.destination).toEqual(['host', 'port', 'username']);
  });
});
