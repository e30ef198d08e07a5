/**
 * Byte counts as the French UI shows them (spec 2 §9: base 1024, "Go" with 2 decimals, file sizes
 * in Mo above 1 MiB else Ko), grouped as fr-FR groups (U+202F). The one place for these units in the
 * web app.
 */

export const KIB = 1024;
export const MIB = 1024 ** 2;
export const GIB = 1024 ** 3;

const twoDecimals = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const oneDecimal = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** Go with 2 decimals (base 1024), "—" when not a number (spec 2 §2): "1,50 Go". */
export function formatGo(bytes: number): string {
  return Number.isFinite(bytes) ? `${twoDecimals.format(bytes / GIB)} Go` : '—';
}

/**
 * A file's size (spec 2 §2 file table): Mo with 2 decimals above 1 MiB, else Ko with 1 decimal —
 * except under 1 Ko, in octets (issue 28: « 26 octets », not « 0,0 Ko »); "—" when not a number.
 * "12,00 Mo", "0,5 Ko"… "26 octets".
 */
export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < KIB) return formatOctets(bytes);
  return bytes > MIB ? `${twoDecimals.format(bytes / MIB)} Mo` : `${oneDecimal.format(bytes / KIB)} Ko`;
}

function formatOctets(bytes: number): string {
  const n = Math.round(bytes);
  return `${n}\u00a0${n > 1 ? 'octets' : 'octet'}`;
}

/**
 * A quota or an amount of storage: in Go with 2 decimals from 1 Go up, in Mo with 1 decimal below
 * (issue 28: « 26,3 Mo utilisés », not « 0,03 Go »), "—" when not a number.
 */
export function formatStorage(bytes: number): string {
  if (!Number.isFinite(bytes)) return '—';
  return Math.abs(bytes) >= GIB ? formatGo(bytes) : `${oneDecimal.format(bytes / MIB)} Mo`;
}
