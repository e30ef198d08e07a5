import { describe, expect, it } from 'vitest';
import { centsToEuros, eurosToCents, formatAmount, formatEuros } from './money';
import { parseFeatures } from './plan-features';

describe('parseFeatures', () => {
  it('accepts an array, a JSON string, or text split on newlines or |', () => {
    expect(parseFeatures([' Chat ', '', 'Appels'])).toEqual(['Chat', 'Appels']);
    expect(parseFeatures('["Chat","Appels"]')).toEqual(['Chat', 'Appels']);
    expect(parseFeatures('Chat\nAppels\r\n\nFichiers')).toEqual(['Chat', 'Appels', 'Fichiers']);
    expect(parseFeatures('Chat|Appels | Fichiers')).toEqual(['Chat', 'Appels', 'Fichiers']);
    expect(parseFeatures('[pas du json')).toEqual(['[pas du json']);
    expect(parseFeatures(null)).toEqual([]);
    expect(parseFeatures(42)).toEqual([]);
  });
});

describe('money', () => {
  it('converts between cents and euros without float drift', () => {
    expect(eurosToCents(9.9)).toBe(990);
    expect(eurosToCents('29,90')).toBe(2990);
    expect(eurosToCents('0.1')).toBe(10);
    expect(Number.isNaN(eurosToCents('abc'))).toBe(true);
    expect(centsToEuros(2990)).toBe(29.9);
  });

  it('formats amounts the French way', () => {
    expect(formatAmount(9.9)).toBe('9,90');
    expect(formatAmount(1234)).toBe('1\u202f234,00');
    expect(formatEuros(299)).toBe('299,00\u00a0€');
  });
});

describe('ZPublicPlan', () => {
  it('turns features sent as text into a list', async () => {
    const { ZPublicPlan } = await import('./public-plan');
    const base = {
      id: 'p',
      slug: 's',
      name: 'N',
      price: 1,
      video_option: 0,
      max_users: 1,
      max_rings: 1,
      storage_gb: 1,
      support_level: 'email',
      features_chat: true,
      features_voice: true,
      features_video: false,
      encryption_levels: ['basic'],
      ephemeral_allowed: false,
      is_active: true,
      active: true,
      popular: false,
    };
    expect(ZPublicPlan.parse({ ...base, features: 'Chat|Appels' }).features).toEqual(['Chat', 'Appels']);
    expect(ZPublicPlan.parse({ ...base, features: '["A","B"]' }).features).toEqual(['A', 'B']);
  });
});
