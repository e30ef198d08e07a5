import { SETTINGS_CATEGORIES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import type { SettingRow, SettingsRepository } from './settings.repository';
import { SettingsService, publicSettingsOf } from './settings.service';

const at = '2026-01-01T00:00:00.000Z';
const row = (category: string, key: string, setting_value: string): SettingRow => ({
  category,
  key,
  setting_value,
  updated_at: at,
});

/** Stored values of every visibility: public, admin, set and empty secrets, unknown keys. */
const ROWS: SettingRow[] = [
  row('general', 'site_name', 'Mon site'),
  row('general', 'ring_storage_dir', 'ailleurs'),
  row('general', 'not_a_key', 'ignoré'),
  row('smtp', 'host', 'smtp.example.test'),
  row('smtp', 'password', 's3cret'),
  row('stripe', 'enabled', '1'),
  row('stripe', 'public_key_test', 'pk_test_1'),
  row('stripe', 'secret_key_test', 'sk_test_1'),
  row('stripe', 'secret_key_live', ''),
  row('system', 'logging_enabled', '0'),
];

function serviceWith(rows: SettingRow[]): SettingsService {
  const repo = {
    findAll: async (category?: string) => rows.filter((r) => !category || r.category === category),
  } as unknown as SettingsRepository;
  return new SettingsService(repo, new ManualClock(at));
}

describe('publicSettingsOf', () => {
  const service = serviceWith(ROWS);

  it('turns an admin read into exactly the public read, for all categories at once', async () => {
    const derived = publicSettingsOf(await service.read('admin'));
    const expected = await service.read('public');
    expect(JSON.stringify(derived)).toBe(JSON.stringify(expected));
  });

  it('does so for each category and for an unknown one', async () => {
    for (const category of [...SETTINGS_CATEGORIES, 'nope']) {
      const derived = publicSettingsOf(await service.read('admin', category));
      expect(JSON.stringify(derived)).toBe(JSON.stringify(await service.read('public', category)));
    }
  });

  it('drops categories without a public key and never shows admin keys or secrets', async () => {
    const derived = publicSettingsOf(await service.read('admin'));
    expect(derived.system).toBeUndefined();
    expect(derived.smtp).toBeUndefined();
    expect(derived.general?.site_name).toEqual({ setting_value: 'Mon site' });
    expect(derived.general?.ring_storage_dir).toBeUndefined();
    expect(Object.keys(derived.stripe ?? {})).toEqual([
      'enabled',
      'test_mode',
      'public_key_test',
      'public_key_live',
    ]);
  });
});
