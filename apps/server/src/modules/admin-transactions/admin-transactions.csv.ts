import {
  PAYMENT_STATUS_LABELS,
  TRANSACTIONS_CSV_HEADERS,
  TRANSACTION_GATEWAY_LABELS,
  type TAdminTransaction,
  type TransactionGateway,
} from '@securering/contract';

const SEPARATOR = ';';
const LINE_END = '\r\n';
const BOM = '\uFEFF';

export type CsvCell = string | number | null | undefined;

/**
 * RFC 4180 quoting: a field with the separator, a quote, CR or LF is quoted and its quotes doubled.
 * Text starting with = + - @ (or a tab/CR) gets a leading apostrophe so a spreadsheet never runs
 * it as a formula (a customer chooses their own name).
 */
export function csvField(value: CsvCell, { text = true } = {}): string {
  if (value === null || value === undefined) return '';
  let out = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (text && /^[=+\-@\t\r]/.test(out)) out = `'${out}`;
  return /[";\r\n]/.test(out) ? `"${out.replace(/"/g, '""')}"` : out;
}

/** One CSV line (CRLF included). `numeric` columns are written as they are, without the guard. */
export function csvLine(cells: CsvCell[], numeric: ReadonlySet<number> = new Set()): string {
  return cells.map((cell, i) => csvField(cell, { text: !numeric.has(i) })).join(SEPARATOR) + LINE_END;
}

/**
 * "22/11/2026 19:30" in Paris time. Made on the first export, not when the module loads: a French
 * Intl formatter maps about 5 MiB of ICU data, which an instance that never exports need not hold.
 */
let dateFormat: Intl.DateTimeFormat | undefined;

export function csvDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  dateFormat ??= new Intl.DateTimeFormat('fr-FR', {
    timeZone: 'Europe/Paris',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  return dateFormat.format(date).replace(',', '');
}

/** 1234.5 → "1234,50": a decimal comma, no thousands separator, so spreadsheets read a number. */
export function csvAmount(amount: number): string {
  return amount.toFixed(2).replace('.', ',');
}

const gatewayLabel = (provider: string) =>
  TRANSACTION_GATEWAY_LABELS[provider as TransactionGateway] ?? provider;

const MONTANT = TRANSACTIONS_CSV_HEADERS.indexOf('Montant');

/**
 * The transactions export: UTF-8 BOM, ';' separated, CRLF lines, columns
 * Date;Client;Email;Plan;Période;Montant;Devise;Passerelle;Statut;Référence.
 */
export function transactionsToCsv(rows: Array<TAdminTransaction & { reference: string }>): string {
  const numeric = new Set([MONTANT]);
  let out = BOM + csvLine([...TRANSACTIONS_CSV_HEADERS]);
  for (const t of rows) {
    out += csvLine(
      [
        csvDate(t.created_at),
        t.customer_name,
        t.customer_email,
        t.plan_name,
        t.billing_cycle === 'yearly' ? 'Annuel' : 'Mensuel',
        csvAmount(t.amount),
        t.currency,
        gatewayLabel(t.payment_provider),
        PAYMENT_STATUS_LABELS[t.computed_status],
        t.reference,
      ],
      numeric,
    );
  }
  return out;
}
