import { formatEuros } from '@securering/contract';

/** "22 novembre 2026", in Paris time: how dates read in French mails. */
export function formatDateFr(iso: string | Date): string {
  return new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeZone: 'Europe/Paris' }).format(
    new Date(iso),
  );
}

export function formatCents(cents: number, currency = 'EUR'): string {
  if (currency.toUpperCase() === 'EUR') return formatEuros(cents / 100);
  return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

export const CYCLE_LABELS = { monthly: 'mensuel', yearly: 'annuel' } as const;
