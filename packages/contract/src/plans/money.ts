/** Money is integer cents on the server; the API shows euros with 2 decimals. */

export function centsToEuros(cents: number): number {
  return Math.round(cents) / 100;
}

/** Euros (number or decimal string, comma allowed) to integer cents; NaN when not a number. */
export function eurosToCents(euros: number | string): number {
  const n = typeof euros === 'number' ? euros : Number(String(euros).trim().replace(',', '.'));
  return Number.isFinite(n) ? Math.round(n * 100) : Number.NaN;
}

/**
 * French amount without currency sign, grouped as fr-FR groups (U+202F): 9,9 → "9,90",
 * 1234 → "1 234,00". Written out rather than with Intl.NumberFormat, whose first French formatter
 * costs tens of milliseconds on a phone; the result is the same: half away from zero on the
 * number's shortest decimal form (1.005 → "1,01"). The one money formatter of the site, the
 * customer space and the back office, with `formatEuros` and `formatMoney`.
 */
export function formatAmount(euros: number): string {
  const text = String(Math.abs(euros));
  if (!Number.isFinite(euros) || text.includes('e')) {
    return new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(euros);
  }
  const [units = '0', fraction = ''] = text.split('.');
  const roundUp = (fraction[2] ?? '0') >= '5' ? 1n : 0n;
  const cents = (BigInt(units + fraction.slice(0, 2).padEnd(2, '0')) + roundUp).toString().padStart(3, '0');
  return `${euros < 0 ? '-' : ''}${groupThousands(cents.slice(0, -2))},${cents.slice(-2)}`;
}

/** "1234567" → "1 234 567" with U+202F, the fr-FR group separator. */
function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+$)/g, '\u202f');
}

/** "9,90 €": the amount, a no-break space (U+00A0) and the euro sign, as fr-FR writes it. */
export function formatEuros(euros: number): string {
  return `${formatAmount(euros)}\u00a0€`;
}

/** An amount in its own currency: "29,90 €" for euros, "12,00 USD" for another one. */
export function formatMoney(amount: number, currency?: string | null): string {
  const code = currency?.trim().toUpperCase() || 'EUR';
  return code === 'EUR' ? formatEuros(amount) : `${formatAmount(amount)}\u00a0${code}`;
}

/** A whole count with fr-FR grouping: 12540 → "12 540" (U+202F); "—" when not a number. */
export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const rounded = Math.round(value);
  return `${rounded < 0 ? '-' : ''}${groupThousands(String(Math.abs(rounded)))}`;
}
