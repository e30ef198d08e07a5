/** Money is integer cents on the server; the API shows euros with 2 decimals. */

export function centsToEuros(cents: number): number {
  return Math.round(cents) / 100;
}

/** Euros (number or decimal string, comma allowed) to integer cents; NaN when not a number. */
export function eurosToCents(euros: number | string): number {
  const n = typeof euros === 'number' ? euros : Number(String(euros).trim().replace(',', '.'));
  return Number.isFinite(n) ? Math.round(n * 100) : Number.NaN;
}

/** French amount without currency sign: 9,9 → "9,90", 1234 → "1 234,00". */
export function formatAmount(euros: number): string {
  return new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    .format(euros)
    .replace(/\u202f|\u00a0/g, ' ');
}

/** "9,90 €" */
export function formatEuros(euros: number): string {
  return `${formatAmount(euros)} €`;
}
