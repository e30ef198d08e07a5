import { describe, expect, it } from 'vitest';
import { SETTING_DEFINITIONS } from './definitions';
import { checkSettingValue } from './validate';

describe('checkSettingValue', () => {
  it('normalises flags from legacy forms', () => {
    for (const v of [true, 1, '1', 'true', 'on'])
      expect(checkSettingValue({ type: 'flag' }, v, 'x')).toEqual({ ok: true, value: '1' });
    for (const v of [false, 0, '0', 'false', ''])
      expect(checkSettingValue({ type: 'flag' }, v, 'x')).toEqual({ ok: true, value: '0' });
    expect(checkSettingValue({ type: 'flag' }, 'maybe', 'x').ok).toBe(false);
  });

  it('accepts #rrggbb colours only, lower-cased', () => {
    expect(checkSettingValue({ type: 'color' }, '#3B82F6', 'c')).toEqual({ ok: true, value: '#3b82f6' });
    expect(checkSettingValue({ type: 'color' }, 'blue', 'c').ok).toBe(false);
    expect(checkSettingValue({ type: 'color' }, '#fff', 'c').ok).toBe(false);
  });

  it('applies the realtime bounds and steps of spec 3 §5', () => {
    const rt = SETTING_DEFINITIONS.realtime;
    expect(checkSettingValue(rt.polling_backoff_factor.kind, '2,5', 'f')).toEqual({ ok: true, value: '2.5' });
    expect(checkSettingValue(rt.polling_backoff_factor.kind, '1.3', 'f').ok).toBe(false);
    expect(checkSettingValue(rt.polling_backoff_factor.kind, '4.5', 'f').ok).toBe(false);
    expect(checkSettingValue(rt.heartbeat_sec.kind, '5', 'h').ok).toBe(true);
    expect(checkSettingValue(rt.heartbeat_sec.kind, '4', 'h').ok).toBe(false);
    expect(checkSettingValue(rt.grace_sec.kind, '61', 'g').ok).toBe(false);
    expect(checkSettingValue(rt.polling_initial_sec.kind, 'abc', 'p')).toEqual({
      ok: false,
      error: 'p : nombre attendu',
    });
    expect(checkSettingValue(SETTING_DEFINITIONS.general.ring_refresh_interval.kind, '301', 'r').ok).toBe(
      false,
    );
  });

  it('checks emails and http(s) links, allowing empty values', () => {
    expect(checkSettingValue({ type: 'email' }, '', 'e').ok).toBe(true);
    expect(checkSettingValue({ type: 'email' }, 'a@b', 'e')).toEqual({ ok: false, error: 'Email invalide' });
    expect(checkSettingValue({ type: 'url' }, 'javascript:alert(1)', 'u').ok).toBe(false);
    expect(checkSettingValue({ type: 'url' }, 'https://apps.example/app', 'u').ok).toBe(true);
  });

  it('keeps HTML untrimmed and refuses values of the wrong type', () => {
    expect(checkSettingValue({ type: 'html' }, ' <p>x</p> ', 'h')).toEqual({ ok: true, value: ' <p>x</p> ' });
    expect(checkSettingValue({ type: 'text' }, { a: 1 }, 't').ok).toBe(false);
    expect(checkSettingValue({ type: 'choice', options: ['tls', 'ssl', 'none'] }, 'starttls', 'enc').ok).toBe(
      false,
    );
  });
});
