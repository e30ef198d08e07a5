import { saveBlob } from './save-blob';

/** Field separator: French Excel splits columns on ';' (',' is the decimal mark). */
export const CSV_SEPARATOR = ';';
const LINE_END = '\r\n';
const BOM = '\uFEFF';

export type CsvCell = string | number | null | undefined;

/**
 * A text cell a spreadsheet would run as a formula (= + - @, or a tab or CR before one) gets a
 * leading ' so it stays text (CSV formula injection: usernames and other names come from users).
 * Numbers are written as numbers.
 */
function defuseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** RFC 4180 quoting: a field with the separator, a quote, CR or LF is quoted, its quotes doubled. */
function csvField(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : defuseFormula(value);
  return /[";\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A CSV document Excel opens correctly in French: ';' separator, CRLF line ends and a UTF-8
 * byte-order mark so accents survive. Every line, the last one included, ends with CRLF.
 */
export function toCsv(headers: string[], rows: CsvCell[][]): string {
  const lines = [headers, ...rows].map((cells) => cells.map(csvField).join(CSV_SEPARATOR) + LINE_END);
  return BOM + lines.join('');
}

/** Saves a CSV document in the browser. */
export function downloadCsv(filename: string, csv: string): void {
  saveBlob(filename, new Blob([csv], { type: 'text/csv;charset=utf-8' }));
}
