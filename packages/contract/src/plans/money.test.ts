import { describe, expect, it } from 'vitest';
import { formatAmount } from './money';

describe('formatAmount', () => {
  const intl = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const reference = (n: number) => intl.format(n).replace(/\u202f|\u00a0/g, ' ');

  it('writes what Intl.NumberFormat fr-FR writes, ties and grouping included', () => {
    const values = [
      0, 1, 9.9, 29.9, 1234, 1234.5, 999.995, 0.125, 1.005, 2.675, 0.005, 10_000_000, 123456789.125, -5,
      -1234.5, -0.005, 1e21, 5e-7,
    ];
    for (let i = 0; i < 2000; i += 1) values.push(Math.round(Math.random() * 1e9) / 1000);
    for (const value of values) expect(formatAmount(value), String(value)).toBe(reference(value));
  });
});
