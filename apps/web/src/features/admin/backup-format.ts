const UNITS = ['Ko', 'Mo', 'Go', 'To'] as const;
const number = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });

/** A byte count in French units (base 1024): "512 o", "1,5 Ko", "12,3 Mo", "2 Go". */
export function formatBackupSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${bytes} o`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${number.format(value)} ${UNITS[unit]}`;
}

/** What happened to a restore request: answered, or cut by the client after the abort delay. */
export type RestoreOutcome = 'restored' | 'cut';
