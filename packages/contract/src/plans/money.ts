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
 * French amount without currency sign: 9,9 → "9,90", 1234 → "1 234,00". Written out rather than
 * with Intl.NumberFormat, whose first French formatter costs tens of milliseconds on a phone; the
 * result is the same: half away from zero on the number's shortest decimal form (1.005 → "1,01").
 */
export function formatAmount(euros: number): string {
  const text = String(Math.abs(euros));
  if (!Number.isFinite(euros) || text.includes('e')) {
    return new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
      .format(euros)
      .replace(/\u202f|\u00a0/g, ' ');
  }
  const [units = '0', fraction = ''] = text.split('.');
  const roundUp = (fraction[2] ?? '0') >= '5' ? 1n : 0n;
  const cents = (BigInt(units + fraction.slice(0, 2).padEnd(2, '0')) + roundUp).toString().padStart(3, '0');
  const grouped = cents.slice(0, -2).replace(/\B(?=(\d{3})+$)/g, ' ');
  return `${euros < 0 ? '-' : ''}${grouped},${cents.slice(-2)}`;
}

/** "9,90 €" */
export function formatEuros(euros: number): string {
  return `${formatAmount(euros)} €`;
}
