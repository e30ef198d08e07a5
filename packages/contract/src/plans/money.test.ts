import { describe, expect, it } from 'vitest';
import { formatAmount, formatCount, formatEuros, formatMoney } from './money';

describe('formatAmount', () => {
  const intl = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

  it('writes what Intl.NumberFormat fr-FR writes, ties and grouping (U+202F) included', () => {
    const values = [
      0, 1, 9.9, 29.9, 1234, 1234.5, 999.995, 0.125, 1.005, 2.675, 0.005, 10_000_000, 123456789.125, -5,
      -1234.5, -0.005, 1e21, 5e-7,
    ];
    for (let i = 0; i < 2000; i += 1) values.push(Math.round(Math.random() * 1e9) / 1000);
    for (const value of values) expect(formatAmount(value), String(value)).toBe(intl.format(value));
  });

  it('groups thousands with a narrow no-break space, never a plain space', () => {
    expect(formatAmount(12540)).toBe('12\u202f540,00');
    expect(formatAmount(12540)).not.toContain(' ');
  });
});

describe('formatEuros and formatMoney', () => {
  it('write euros as Intl fr-FR currency does: no-break space before €', () => {
    const intl = new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR' });
    for (const value of [0, 4.9, 9.9, 398, 1234.5, 12540.99])
      expect(formatEuros(value), String(value)).toBe(intl.format(value));
    expect(formatEuros(4.9)).toBe('4,90\u00a0€');
  });

  it('keeps another currency as its code, and euros for an empty one', () => {
    expect(formatMoney(12, 'usd')).toBe('12,00\u00a0USD');
    expect(formatMoney(29.9, 'EUR')).toBe('29,90\u00a0€');
    expect(formatMoney(29.9, '')).toBe('29,90\u00a0€');
  });
});

describe('formatCount', () => {
  it('groups like Intl fr-FR and rounds to a whole number', () => {
    const intl = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 });
    for (const value of [0, 7, 999, 1000, 12540, 1234567, -4321, 2.6])
      expect(formatCount(value), String(value)).toBe(intl.format(value));
    expect(formatCount(Number.NaN)).toBe('—');
  });
});
