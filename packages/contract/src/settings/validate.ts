import { isEmailAddress } from '../customers/validation';
import type { SettingKind } from './definitions';

export type SettingCheck = { ok: true; value: string } | { ok: false; error: string };

/**
 * Normalises and checks one setting value against its kind. Pure, so the admin forms can run the
 * same check the server runs.
 */
export function checkSettingValue(kind: SettingKind, raw: unknown, label: string): SettingCheck {
  if (raw === null || raw === undefined) raw = '';
  if (typeof raw === 'boolean') raw = raw ? '1' : '0';
  if (typeof raw === 'number') raw = String(raw);
  if (typeof raw !== 'string') return { ok: false, error: `Valeur invalide pour ${label}` };
  const value = kind.type === 'html' ? raw : raw.trim();
  switch (kind.type) {
    case 'text':
      return value.length <= (kind.max ?? 2000)
        ? { ok: true, value }
        : { ok: false, error: `${label} : ${kind.max ?? 2000} caractères maximum` };
    case 'html':
      return value.length <= 200_000
        ? { ok: true, value }
        : { ok: false, error: `${label} : contenu trop long` };
    case 'flag': {
      const v = value.toLowerCase();
      if (['1', 'true', 'on', 'yes'].includes(v)) return { ok: true, value: '1' };
      if (['0', 'false', 'off', 'no', ''].includes(v)) return { ok: true, value: '0' };
      return { ok: false, error: `${label} : valeur attendue 0 ou 1` };
    }
    case 'color':
      return /^#[0-9a-fA-F]{6}$/.test(value)
        ? { ok: true, value: value.toLowerCase() }
        : { ok: false, error: `${label} : couleur attendue au format #rrggbb` };
    case 'email':
      return value === '' || isEmailAddress(value)
        ? { ok: true, value }
        : { ok: false, error: 'Email invalide' };
    case 'url':
      return value === '' || /^https?:\/\/[^\s]+$/i.test(value)
        ? { ok: true, value }
        : { ok: false, error: `${label} : adresse http(s) attendue` };
    case 'number': {
      const n = Number(value.replace(',', '.'));
      if (value === '' || !Number.isFinite(n)) return { ok: false, error: `${label} : nombre attendu` };
      if (n < kind.min || n > kind.max) {
        return { ok: false, error: `${label} : valeur entre ${kind.min} et ${kind.max} attendue` };
      }
      const step = kind.step ?? 1;
      if (Math.abs(Math.round(n / step) * step - n) > 1e-9) {
        return {
          ok: false,
          error: `${label} : valeur par pas de ${String(step).replace('.', ',')} attendue`,
        };
      }
      return { ok: true, value: String(n) };
    }
    case 'choice':
      return kind.options.includes(value)
        ? { ok: true, value }
        : { ok: false, error: `${label} : valeur parmi ${kind.options.join(', ')} attendue` };
  }
}
